/**
 * Every README example works as printed: each fenced `sh` block that runs `curl` is run against the compiled
 * service (as `npm start` runs it), started on fake upstreams (the marketplaces' origins routed to them), with `$KEY`
 * set to one of its keys and the README's `http://localhost:8080` pointed at the test's port; what it prints must have
 * the shape of the `json` block printed under it in the README (the same keys at every level, the same value types).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type Served } from './support/binary.js';
import { FakeUpstream } from './support/fake-upstream.js';
import { closedPort } from './support/ports.js';
import { REPO_ROOT } from './support/repo-root.js';
import { buyBar } from './support/upstream-fixtures.js';

const run = promisify(execFile);
const KEY = 'ml_readme_examples_test_key_0123456789abcdef';

interface Example {
  command: string;
  /** The README's printed answer (JSON), or undefined when none follows the command. */
  printed?: string;
}

/** The README's `sh` blocks with `curl` in them, each with the `json` block right after it (blank lines between). */
function readmeExamples(markdown: string): Example[] {
  const blocks = [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```\s*$/gm)].map((m) => ({
    lang: m[1],
    body: m[2]!,
    start: m.index,
    end: m.index + m[0].length,
  }));
  const examples: Example[] = [];
  blocks.forEach((b, i) => {
    if (b.lang !== 'sh' || !/\bcurl\b/.test(b.body)) return;
    const next = blocks[i + 1];
    const adjacent = next && next.lang === 'json' && markdown.slice(b.end, next.start).trim() === '';
    examples.push({ command: b.body.trim(), printed: adjacent ? next.body : undefined });
  });
  return examples;
}

type Shape = string | Shape[] | { [key: string]: Shape };

/** Keys and value types, not values: an array's shape is its first element's (every README sample has one). */
function shapeOf(value: unknown): Shape {
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.length === 0 ? [] : [shapeOf(value[0])];
  if (typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, shapeOf(v)]),
    );
  }
  return typeof value;
}

describe('README examples', () => {
  const goat = new FakeUpstream();
  let served: Served;
  let port: number;
  const examples = readmeExamples(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'));

  beforeAll(async () => {
    await goat.start();
    goat.serve('/web-api/v1/product_variants/buy_bar_data', buyBar);
    port = await closedPort();
    served = await startServe({
      MARKETLENS_HOST: '127.0.0.1',
      MARKETLENS_PORT: String(port),
      MARKETLENS_DATA_DIR: mkdtempSync(join(tmpdir(), 'marketlens-readme-')),
      MARKETLENS_API_KEYS: KEY,
      MARKETLENS_BROWSER_PATH: 'none',
      MARKETLENS_LOG_LEVEL: 'info', // (startServe waits for the "Server listening" line)
      MARKETLENS_SHUTDOWN_DELAY_MS: '0',
      MARKETLENS_RESALE_B_ORIGIN: goat.origin,
    });
  }, 60_000);
  afterAll(async () => {
    served?.child.kill('SIGTERM');
    await served?.exited;
    await goat.stop();
  });

  it('has curl examples, each with its printed answer', () => {
    expect(examples.length).toBeGreaterThanOrEqual(4);
    for (const e of examples) expect(e.printed, e.command).toBeDefined();
  });

  it('Layout names every folder of src/ and of the repository', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const layout = readme.slice(readme.indexOf('## Layout'));
    const folders = (dir: string) =>
      readdirSync(join(REPO_ROOT, dir), { withFileTypes: true })
        .filter(
          (e) =>
            e.isDirectory() &&
            !e.name.startsWith('.') &&
            // Outputs the repository ignores (.gitignore), not folders of the code.
            !['node_modules', 'dist', 'data', 'coverage', 'test-artifacts'].includes(e.name),
        )
        .map((e) => (dir === '.' ? `${e.name}/` : `${dir}/${e.name}/`));
    for (const folder of [...folders('src'), ...folders('.').filter((f) => f !== 'src/')]) {
      expect(layout, folder).toContain(folder === 'src/marketplaces/' ? 'src/marketplaces/<name>/' : `\`${folder}`);
    }
  });

  it.each(examples.map((e) => [e.command.split('\n')[0]!, e] as const))('%s', async (_title, example) => {
    const command = example.command.replaceAll('http://localhost:8080', `http://127.0.0.1:${port}`);
    const { stdout } = await run('/bin/sh', ['-c', command], { env: { ...process.env, KEY } });
    const expected = JSON.parse(example.printed!) as unknown;
    expect(shapeOf(JSON.parse(stdout)), stdout).toEqual(shapeOf(expected));
  });
});
