/**
 * The browser tier's limits with a real Chromium: the page pool never exceeds its size under 20 concurrent lookups,
 * a hung page (a document that never arrives, a script that never yields) is killed at the lookup's deadline and its
 * slot comes back, a crashed browser is relaunched on the next lookup, and close() shuts it down.
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserFetchContext } from '../src/upstream/browser.js';
import { ChromiumFetcher } from '../src/upstream/browser/index.js';
import { chromiumAvailable, chromiumPath } from './support/chromium.js';
import { FakeUpstream } from './support/fake-upstream.js';

const POOL = 4;
const GOAT = 'https://www.goat.com';
const BUY_BAR = '/web-api/v1/product_variants/buy_bar_data';
const page = (title: string): string =>
  `<!DOCTYPE html><html><head><title>${title}</title></head><body><h1>${title}</h1></body></html>`;

/** The main Chromium process of a profile (the one without `--type=`), found by its own temp user-data dir. */
function browserPid(userDataDir: string): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmd: string;
    try {
      cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    const args = cmd.split('\0');
    if (args.includes(`--user-data-dir=${userDataDir}`) && !args.some((a) => a.startsWith('--type=')))
      return Number(entry);
  }
  return undefined;
}

async function until(check: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.skipIf(!chromiumAvailable)('browser tier limits (Chromium)', () => {
  const site = new FakeUpstream();
  let fetcher: ChromiumFetcher;
  let inFlight = 0;
  let maxInFlight = 0;
  const ctx = (ms = 10_000): BrowserFetchContext => ({
    marketplace: 'resale-b',
    signal: AbortSignal.timeout(ms),
    cookies: '',
  });

  beforeAll(async () => {
    await site.start();
    site.on('/slow', (req, res) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      setTimeout(() => {
        inFlight--;
        res.writeHead(200, { 'content-type': 'text/html' }).end(page(`slow ${req.query.get('n')}`));
      }, 150);
    });
    site.serve('/ok', page('ok'));
    // A document that never arrives.
    site.on('/never', () => undefined);
    // A site whose home page script never yields: any call made from that page hangs.
    site.serve('/', '<!DOCTYPE html><html><body><script>for (;;) {}</script></body></html>');
    fetcher = new ChromiumFetcher({
      executablePath: chromiumPath,
      poolSize: POOL,
      origins: { 'resale-b': site.origin },
      challengeWaitMs: 1_000,
    });
  });
  afterAll(async () => {
    await fetcher?.close();
    await site.stop();
  });

  it(`never has more than ${POOL} pages busy under 20 concurrent lookups, and every lookup is answered`, async () => {
    fetcher.pool.resetPeak();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, n) => fetcher.fetch({ url: `${GOAT}/slow?n=${n}`, expect: 'html' }, ctx(20_000))),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(results.map((r) => /<h1>slow (\d+)<\/h1>/.exec(r.body)?.[1])).toEqual(
      Array.from({ length: 20 }, (_, n) => String(n)),
    );
    expect(results[7]!.url).toBe(`${GOAT}/slow?n=7`);
    const stats = fetcher.pool.stats();
    expect(stats.peak).toBe(POOL); // the counter saw the pool full, never over it
    expect(maxInFlight).toBeLessThanOrEqual(POOL);
    expect(maxInFlight).toBeGreaterThan(1);
    expect(stats.busy).toBe(0);
    expect(stats.waiting).toBe(0);
    expect(stats.busy + stats.idle).toBeLessThanOrEqual(POOL);
  });

  it('kills a page whose document never arrives at the deadline, and gives its slot back', async () => {
    const t0 = Date.now();
    await expect(fetcher.fetch({ url: `${GOAT}/never`, expect: 'html' }, ctx(600))).rejects.toMatchObject({
      name: 'TimeoutError',
    });
    expect(Date.now() - t0).toBeLessThan(1_500);
    await until(() => fetcher.pool.stats().busy === 0, 2_500);
    expect(fetcher.pool.stats().idle).toBeLessThan(POOL + 1);
  });

  it('kills a page whose script never yields at the deadline; the next lookup gets a working page', async () => {
    // The API answers a challenge, so the fetcher reloads the home page (whose script spins forever) and asks from there.
    site.serve(BUY_BAR, '<html><head><title>Just a moment...</title></head><body>cf_chl_opt</body></html>', {
      status: 403,
      headers: { 'cf-mitigated': 'challenge' },
    });
    const t0 = Date.now();
    await expect(
      fetcher.fetch({ url: `${GOAT}${BUY_BAR}?productTemplateId=1`, expect: 'json' }, ctx(800)),
    ).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(Date.now() - t0).toBeLessThan(1_700);
    expect(site.count('/')).toBeGreaterThan(0); // it really was on the spinning page
    await until(() => fetcher.pool.stats().busy === 0, 2_500);
    const next = await fetcher.fetch({ url: `${GOAT}/ok`, expect: 'html' }, ctx());
    expect(next.status).toBe(200);
    expect(next.body).toContain('<h1>ok</h1>');
  });

  it('relaunches a crashed browser on the next lookup', async () => {
    const before = fetcher.stats();
    const dir = before.sites.find((s) => s.marketplace === 'resale-b')!.userDataDir;
    const pid = browserPid(dir);
    expect(pid).toBeGreaterThan(0);
    process.kill(pid!, 'SIGKILL');
    // The dead browser is forgotten and its profile removed.
    await until(() => fetcher.stats().sites.length === 0 && !existsSync(dir), 5_000);
    const res = await fetcher.fetch({ url: `${GOAT}/ok`, expect: 'html' }, ctx());
    expect(res.status).toBe(200);
    expect(fetcher.stats().launches).toBe(before.launches + 1);
  });

  it('close() shuts the browser and removes its profile', async () => {
    const dir = fetcher.stats().sites[0]!.userDataDir;
    const pid = browserPid(dir);
    expect(pid).toBeGreaterThan(0);
    await fetcher.close();
    expect(existsSync(dir)).toBe(false);
    expect(browserPid(dir)).toBeUndefined();
    await expect(fetcher.fetch({ url: `${GOAT}/ok`, expect: 'html' }, ctx())).rejects.toMatchObject({
      code: 'internal',
    });
  });
});
