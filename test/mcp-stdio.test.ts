/**
 * `marketlens mcp` as a local assistant starts it: the compiled CLI (dist/cli.js, built by the global setup) spawned
 * by the SDK's own stdio client, against the fixture marketplaces. A missing or unknown key is a clear error on
 * stderr, a non-zero exit, and nothing on stdout (which only ever carries the protocol).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_KEY } from './support/app.js';
import { CLI, cleanEnv, runCli } from './support/binary.js';
import { startFixtureMarketplaces, type FixtureMarketplaces } from './support/fixture-marketplaces.js';

let m: FixtureMarketplaces;
let env: Record<string, string>;

beforeAll(async () => {
  m = await startFixtureMarketplaces();
  env = {
    ...m.env,
    MARKETLENS_DATA_DIR: mkdtempSync(join(tmpdir(), 'marketlens-mcp-stdio-')),
    MARKETLENS_API_KEYS: TEST_KEY,
    MARKETLENS_LOG_LEVEL: 'warn',
    MARKETLENS_BROWSER_PATH: 'none',
  };
});

afterAll(async () => {
  await m?.stop();
});

describe('marketlens mcp (stdio)', () => {
  it('lists the tools and answers a lookup, acting as MARKETLENS_API_KEY', { timeout: 30_000 }, async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp'],
      env: cleanEnv({ ...env, MARKETLENS_API_KEY: TEST_KEY }) as Record<string, string>,
      cwd: tmpdir(),
      stderr: 'pipe',
    });
    const client = new Client({ name: 'mcp-stdio-test', version: '1.0.0' });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['goat_prices', 'stockx_product']));
      const r = (await client.callTool({ name: 'goat_prices', arguments: { query: '1341930' } })) as CallToolResult;
      expect(r.isError).toBeFalsy();
      expect(Array.isArray((r.structuredContent as { results: unknown[] }).results)).toBe(true);
      expect(r.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/USD/) });
    } finally {
      await client.close();
    }
  });

  it('an unknown --key exits 1 with a message on stderr only', async () => {
    const bad = await runCli(['mcp', '--key', 'ml_not_a_key_of_this_service_000000'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/API key is not valid/);
    expect(bad.stdout).toBe('');
  });

  it('no key: a usage error naming MARKETLENS_API_KEY and --key', async () => {
    const none = await runCli(['mcp'], env);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/MARKETLENS_API_KEY.*--key/);
    expect(none.stdout).toBe('');
  });
});
