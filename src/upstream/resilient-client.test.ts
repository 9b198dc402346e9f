import { SILENT_LOGGER, type Logger } from '../platform/logger.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { MARKETPLACE_DESCRIPTORS } from '../marketplaces/catalog.js';
import { ImpitTransport } from './impit-transport.js';
import { ResilientHttpClient } from './resilient-client.js';
import type { Config } from '../config.js';
import type { BrowserFetcher } from './browser.js';
import { FakeUpstream } from '../../test/support/fake-upstream.js';

describe('the resilient client directly', () => {
  const nike = new FakeUpstream();
  beforeAll(async () => {
    await nike.start();
  });
  afterAll(async () => {
    await nike.stop();
  });
  const ctx = () => ({ marketplace: 'sportswear' as const, signal: AbortSignal.timeout(3000) });

  it('decodes a declared charset (latin-1 page)', async () => {
    nike.on(
      '/t/air',
      (_req, res) =>
        void res
          .writeHead(200, { 'content-type': 'text/html; charset=iso-8859-1' })
          .end(Buffer.from([0x63, 0x61, 0x66, 0xe9])),
    );
    const client = client_(loadConfig({ MARKETLENS_SPORTSWEAR_ORIGIN: nike.origin }));
    const res = await client.request({ url: 'https://www.nike.com/t/air', expect: 'html' }, ctx());
    expect(res).toMatchObject({ status: 200, url: 'https://www.nike.com/t/air', body: 'café' });
  });

  it('refuses an operation URL outside the marketplace before any network use (internal)', async () => {
    const client = client_(loadConfig({ MARKETLENS_SPORTSWEAR_ORIGIN: nike.origin }));
    await expect(client.request({ url: 'https://evil.example/', expect: 'html' }, ctx())).rejects.toMatchObject({
      code: 'internal',
    });
  });

  it("a request within a lookup ends by its own deadline when that is earlier than the lookup's", async () => {
    nike.on('/t/slow', () => undefined); // never answers
    const client = client_(
      loadConfig({ MARKETLENS_SPORTSWEAR_ORIGIN: nike.origin, MARKETLENS_ATTEMPT_TIMEOUT_MS: '5000' }),
    );
    const t0 = Date.now();
    const err = await client
      .lookup({ ...ctx(), deadlineAt: t0 + 3000 }, (inner) =>
        client.request({ url: 'https://www.nike.com/t/slow', expect: 'html' }, { ...inner, deadlineAt: t0 + 300 }),
      )
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'upstream_timeout' });
    expect(Date.now() - t0).toBeLessThan(1500);
  });

  it('skips a configured browser tier without a fetcher, with a log line', async () => {
    nike.serve('/t/plain', '<p>plain</p>');
    const lines: string[] = [];
    const logger = { ...SILENT_LOGGER, warn: (_o: object, msg?: string) => void lines.push(msg ?? '') };
    const client = client_(
      loadConfig({ MARKETLENS_SPORTSWEAR_ORIGIN: nike.origin, MARKETLENS_SPORTSWEAR_TIERS: 'browser,direct' }),
      { logger },
    );
    const res = await client.request({ url: 'https://www.nike.com/t/plain', expect: 'html' }, ctx());
    expect(res.body).toBe('<p>plain</p>');
    expect(lines).toEqual(['skipping fetch tier browser: no browser fetcher is registered']);
  });

  it('uses a registered browser fetcher for the browser tier and keeps its cookies for the direct session', async () => {
    nike.reset();
    nike.on('/t/shoe', (req, res) => {
      const cleared = String(req.headers.cookie ?? '').includes('_abck=ok');
      res
        .writeHead(cleared ? 200 : 403, { 'content-type': 'text/html' })
        .end(cleared ? '<p>shoe</p>' : '<TITLE>Access Denied</TITLE> Reference #18.1');
    });
    const calls: string[] = [];
    const browser: BrowserFetcher = {
      async fetch(req) {
        calls.push(req.url);
        return {
          status: 200,
          url: req.url,
          headers: { 'content-type': 'text/html' },
          body: '<p>shoe via browser</p>',
          cookies: ['_abck=ok; Path=/; Domain=.nike.com'],
        };
      },
    };
    const client = client_(
      loadConfig({
        MARKETLENS_SPORTSWEAR_ORIGIN: nike.origin,
        MARKETLENS_SPORTSWEAR_TIERS: 'direct,browser',
        MARKETLENS_RETRY_ATTEMPTS: '1',
      }),
      { browser },
    );
    const first = await client.request({ url: 'https://www.nike.com/t/shoe', expect: 'html' }, ctx());
    expect(first.body).toBe('<p>shoe via browser</p>');
    const second = await client.request({ url: 'https://www.nike.com/t/shoe', expect: 'html' }, ctx());
    expect(second.body).toBe('<p>shoe</p>'); // the direct tier reused the browser's clearance cookie
    expect(calls).toHaveLength(1);
  });
});

/** The production client (resilient layer over impit) for one configuration, quiet unless a logger is given. */
function client_(config: Config, options: { logger?: Logger; browser?: BrowserFetcher } = {}) {
  return new ResilientHttpClient(config, {
    transport: new ImpitTransport(),
    marketplaces: MARKETPLACE_DESCRIPTORS,
    ...options,
  });
}
