/**
 * `npm run refresh:watchmarket-catalog -- --from FILE…` (issue 19): the refresh reads pages saved from a browser, so a
 * user whose network is blocked by Cloudflare can still rebuild the catalog. Run through tsx like the npm script.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { GENERATED_MARKER } from '../src/marketplaces/watchmarket/catalog-refresh.js';
import { FINDER_CATALOG } from '../src/marketplaces/watchmarket/finder-catalog-data.js';
import { TSX, cleanEnv } from './support/binary.js';
import { sharedAvailable, sharedDir } from './support/shared.js';

const SCRIPT = resolve(import.meta.dirname, '../scripts/refresh-watchmarket-catalog.ts');
const dir = mkdtempSync(join(tmpdir(), 'ml-refresh-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function refresh(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await promisify(execFile)(TSX, [SCRIPT, ...args], { env: cleanEnv({}), timeout: 60_000 });
    return { code: 0, ...r };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe.skipIf(!sharedAvailable)('refresh:watchmarket-catalog --from saved pages', () => {
  it('the saved advanced-search page fills an empty brand group: 545 ids with their labels, written to --out', async () => {
    const out = join(dir, 'catalog.json');
    // A base catalog that knows no brand and no country: everything below comes from the saved page.
    const base = join(dir, 'base.json');
    const groups = FINDER_CATALOG.map((g) =>
      g.id === 'manufacturerIds' || g.id === 'countryIds' ? { ...g, values: [] } : g,
    );
    writeFileSync(base, JSON.stringify({ generated: GENERATED_MARKER, sources: [], groups }));
    const r = await refresh([
      '--base',
      base,
      '--out',
      out,
      '--from',
      sharedDir('chrono24/advanced-search-2026_no-query_manufacturer-select.html'),
    ]);
    expect(r.code, r.stderr).toBe(0);
    const file = JSON.parse(readFileSync(out, 'utf8'));
    expect(file.generated).toBe(GENERATED_MARKER);
    const brands = file.groups.find((g: { id: string }) => g.id === 'manufacturerIds').values;
    expect(brands).toHaveLength(545);
    for (const [label, code] of [
      ['A. Lange & Söhne', '1'],
      ['Rolex', '221'],
      ['Audemars Piguet', '18'],
      ['Omega', '187'],
    ]) {
      expect(brands).toContainEqual({ label, code });
    }
    expect(file.groups.find((g: { id: string }) => g.id === 'countryIds').values).toContainEqual({
      label: 'Germany',
      code: 'DE',
    });
    expect(file.sources).toEqual(['advanced-search-2026_no-query_manufacturer-select.html']);
    // The shipped catalog has the same brands (it was generated this way).
    const shipped = new Set(
      FINDER_CATALOG.find((g) => g.id === 'manufacturerIds')!.values.map((v) => `${v.code} ${v.label}`),
    );
    expect(
      brands.map((v: { code: string; label: string }) => `${v.code} ${v.label}`).filter((b: string) => !shipped.has(b)),
    ).toEqual([]);
  });

  it('--dry-run writes nothing; a saved Cloudflare challenge is refused with exit 1', async () => {
    const out = join(dir, 'dry.json');
    const dry = await refresh([
      '--dry-run',
      '--out',
      out,
      '--from',
      sharedDir('chrono24/advanced-search-2026_no-query_manufacturer-select.html'),
    ]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(existsSync(out)).toBe(false);
    const challenge = join(dir, 'challenge.html');
    writeFileSync(challenge, readFileSync(new URL('./fixtures/watchmarket/challenge.html', import.meta.url)));
    const blocked = await refresh(['--out', out, '--from', challenge]);
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toMatch(/challenge/i);
    expect(existsSync(out)).toBe(false);
  });
});
