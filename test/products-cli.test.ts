/** `marketlens product <sku>`: the compiled CLI against fake StockX, GOAT and Nike serving one SKU. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProductAnswer } from '../src/products/types.js';
import { runCli } from './support/binary.js';
import { SKU, startProductUpstreams, type ProductUpstreams } from './support/product-upstreams.js';

describe('marketlens product', () => {
  let up: ProductUpstreams;
  let env: Record<string, string>;
  beforeAll(async () => {
    up = await startProductUpstreams();
    env = { ...up.env, MARKETLENS_LOG_LEVEL: 'warn', MARKETLENS_DATA_DIR: mkdtempSync(join(tmpdir(), 'ml-product-')) };
  });
  afterAll(() => up.stop());

  it('prints the size table, --size keeps one size, --json the answer; a bad country is a usage error', async () => {
    const [table, json, bad] = await Promise.all([
      runCli(['product', SKU.toLowerCase(), '--size', '8'], env),
      runCli(['product', SKU, '--json'], env),
      runCli(['product', SKU, '--country', 'ZZ'], env),
    ]);
    expect(json.code, json.stderr).toBe(0);
    const answer = JSON.parse(json.stdout) as ProductAnswer;
    expect(answer.sku).toBe(SKU);
    expect(answer.marketplaces.map((m) => m.status)).toEqual(['found', 'found', 'found']);

    expect(table.code, table.stderr).toBe(0);
    const eight = answer.sizes.find((s) => s.size_system === 'us_men' && s.size === '8')!;
    const lines = table.stdout.split('\n');
    expect(lines[0]).toContain(SKU);
    expect(lines[0]).toContain(answer.product.name!);
    const rows = lines.filter((l) => /^US M /.test(l));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(/^US M 8\s+gtin\s+/);
    expect(rows[0]).toContain(`${eight.best_buy!.amount} USD`);
    expect(rows[0]).toContain(`${eight.best_sell!.amount} USD`);
    for (const o of eight.offers) expect(rows[0]).toContain(`${o.amount} ${o.currency}`);

    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('country');
  }, 30_000);
});
