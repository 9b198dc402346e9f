/**
 * HAR 1.2 record and replay: a recorded lookup replays to the identical record with the network off, over HTTP and
 * through the CLI (`marketlens record`, `--replay`); devtools-style HARs (redirect entries, base64 bodies, GraphQL
 * POSTs) replay too; a request the HAR lacks fails naming the URL.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HarReplayClient, emptyHar, requestKey, type Har, type HarEntry } from '../src/upstream/har.js';
import { auth, testApp } from './support/app.js';
import { CLI_COMMAND } from './support/binary.js';
import { FakeUpstream } from './support/fake-upstream.js';
import { closedPort } from './support/ports.js';
import { buyBar } from './support/upstream-fixtures.js';

const BUY_BAR = '/web-api/v1/product_variants/buy_bar_data';
const run = promisify(execFile);

describe('HAR record → replay', () => {
  const goat = new FakeUpstream();
  let dead = '';

  beforeAll(async () => {
    await goat.start();
    goat.serve('/', '<html></html>');
    goat.serve(BUY_BAR, buyBar);
    dead = `http://127.0.0.1:${await closedPort()}`;
  });
  afterAll(async () => {
    await goat.stop();
  });

  it('MARKETLENS_RECORD_DIR saves one HAR per lookup; MARKETLENS_REPLAY answers the same record with the network off', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'marketlens-har-'));
    const live = await testApp({ MARKETLENS_RESALE_B_ORIGIN: goat.origin, MARKETLENS_RECORD_DIR: dir });
    const url = '/api/v1/scraper/resale-b/prices?query=777001&country=UK';
    const recorded = await live.inject({ method: 'GET', url, headers: auth });
    await live.close();
    expect(recorded.statusCode).toBe(200);

    const files = readdirSync(dir).filter((f) => f.endsWith('.har'));
    expect(files).toHaveLength(1);
    const har = JSON.parse(readFileSync(join(dir, files[0]!), 'utf8')) as Har;
    expect(har.log.version).toBe('1.2');
    expect(har.log.entries).toHaveLength(1);
    const entry = har.log.entries[0]!;
    // The real marketplace URL, never the test origin.
    expect(entry.request.url).toBe(
      'https://www.goat.com/web-api/v1/product_variants/buy_bar_data?productTemplateId=777001&countryCode=GB',
    );
    expect(entry.response.status).toBe(200);
    expect(JSON.parse(entry.response.content.text!)).toEqual(buyBar);

    const offline = await testApp({ MARKETLENS_RESALE_B_ORIGIN: dead, MARKETLENS_REPLAY: join(dir, files[0]!) });
    const replayed = await offline.inject({ method: 'GET', url, headers: auth });
    expect(replayed.statusCode).toBe(200);
    expect(replayed.body).toBe(recorded.body);

    const missing = await offline.inject({
      method: 'GET',
      url: '/api/v1/scraper/resale-b/prices?query=5',
      headers: auth,
    });
    expect(missing.statusCode).toBe(502);
    expect(JSON.parse(missing.body).detail).toContain(
      'GET https://www.goat.com/web-api/v1/product_variants/buy_bar_data?productTemplateId=5&countryCode=US',
    );
    await offline.close();
  });

  it('`marketlens record … --out FILE.har` then `--replay FILE.har lookup …` prints the identical record offline', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'marketlens-cli-har-'));
    const har = join(dir, 'prices.har');
    const env = {
      ...process.env,
      MARKETLENS_LOG_LEVEL: 'silent',
      MARKETLENS_DATA_DIR: dir,
      MARKETLENS_DEADLINE_MS: '5000',
    };
    const [node, cli] = CLI_COMMAND([]);
    const rec = await run(node, [...cli, 'record', 'resale-b.prices', 'query=777002', '--out', har], {
      env: { ...env, MARKETLENS_RESALE_B_ORIGIN: goat.origin },
    });
    expect(rec.stderr).toContain(`Saved upstream exchanges to ${har}`);
    expect(JSON.parse(rec.stdout)).toEqual(buyBar);
    const rep = await run(node, [...cli, '--replay', har, 'lookup', 'resale-b.prices', 'query=777002'], {
      env: { ...env, MARKETLENS_RESALE_B_ORIGIN: dead },
    });
    expect(rep.stdout).toBe(rec.stdout);
  }, 30_000);
});

describe('HAR replay matching', () => {
  const ctx = { marketplace: 'resale-a' as const, signal: new AbortController().signal };

  function entry(
    method: string,
    url: string,
    status: number,
    body: string,
    extra: Partial<HarEntry['request']> = {},
    headers: { name: string; value: string }[] = [],
  ): HarEntry {
    return {
      startedDateTime: new Date(0).toISOString(),
      time: 1,
      request: {
        method,
        url,
        httpVersion: 'HTTP/2',
        cookies: [],
        headers: [],
        queryString: [],
        headersSize: -1,
        bodySize: 0,
        ...extra,
      },
      response: {
        status,
        statusText: '',
        httpVersion: 'HTTP/2',
        cookies: [],
        headers: [{ name: 'Content-Type', value: 'application/json' }, ...headers],
        content: { size: body.length, mimeType: 'application/json', text: body },
        redirectURL: '',
        headersSize: -1,
        bodySize: -1,
      },
      cache: {},
      timings: { send: 0, wait: 1, receive: 0 },
    };
  }

  const harOf = (...entries: HarEntry[]): Har => ({ log: { ...emptyHar().log, entries } });

  it('ignores query parameter order', async () => {
    const client = new HarReplayClient(harOf(entry('GET', 'https://stockx.com/api/x?b=2&a=1', 200, '{"ok":1}')));
    const res = await client.request({ url: 'https://stockx.com/api/x?a=1&b=2', expect: 'json' }, ctx);
    expect(res.body).toBe('{"ok":1}');
    expect(requestKey('get', 'https://stockx.com/p?b=2&a=1')).toBe(requestKey('GET', 'https://stockx.com/p?a=1&b=2'));
  });

  it('tells GraphQL POSTs to one URL apart by operationName', async () => {
    const gql = (op: string, answer: string) =>
      entry('POST', 'https://stockx.com/api/p/e', 200, answer, {
        postData: {
          mimeType: 'application/json',
          text: JSON.stringify({ operationName: op, variables: {}, query: 'query { x }' }),
        },
      });
    const client = new HarReplayClient(harOf(gql('GetProduct', '{"p":1}'), gql('GetMarketData', '{"m":1}')));
    const body = JSON.stringify({ operationName: 'GetMarketData', variables: { id: 'x' } });
    const res = await client.request({ url: 'https://stockx.com/api/p/e', method: 'POST', body, expect: 'json' }, ctx);
    expect(res.body).toBe('{"m":1}');
    const byName = await client.request(
      { url: 'https://stockx.com/api/p/e', method: 'POST', operationName: 'GetProduct', expect: 'json' },
      ctx,
    );
    expect(byName.body).toBe('{"p":1}');
    await expect(
      client.request({ url: 'https://stockx.com/api/p/e', method: 'POST', operationName: 'Nope', expect: 'json' }, ctx),
    ).rejects.toMatchObject({
      code: 'upstream_error',
      message: expect.stringContaining('POST https://stockx.com/api/p/e (operationName Nope)'),
    });
  });

  it('follows redirect entries and decodes base64 bodies, as devtools saves them', async () => {
    const moved = entry('GET', 'https://stockx.com/old', 301, '', {}, [{ name: 'Location', value: '/new' }]);
    const target = entry('GET', 'https://stockx.com/new', 200, '');
    target.response.content = {
      size: 7,
      mimeType: 'text/html',
      text: Buffer.from('<p>hi</p>').toString('base64'),
      encoding: 'base64',
    };
    const client = new HarReplayClient(harOf(moved, target));
    const res = await client.request({ url: 'https://stockx.com/old', expect: 'html' }, ctx);
    expect(res).toMatchObject({ status: 200, url: 'https://stockx.com/new', body: '<p>hi</p>' });
  });

  it('replays a recorded block as a block', async () => {
    const client = new HarReplayClient(
      harOf(entry('GET', 'https://stockx.com/api/x', 403, '{"appId":"PX16uD0kOF","blockScript":"/c.js"}')),
    );
    await expect(client.request({ url: 'https://stockx.com/api/x', expect: 'json' }, ctx)).rejects.toMatchObject({
      code: 'upstream_blocked',
    });
  });

  it('repeated identical requests take successive entries, then keep the last', async () => {
    const client = new HarReplayClient(
      harOf(entry('GET', 'https://stockx.com/a', 200, '"1"'), entry('GET', 'https://stockx.com/a', 200, '"2"')),
    );
    const bodies = [];
    for (let i = 0; i < 3; i++)
      bodies.push((await client.request({ url: 'https://stockx.com/a', expect: 'json' }, ctx)).body);
    expect(bodies).toEqual(['"1"', '"2"', '"2"']);
  });
});
