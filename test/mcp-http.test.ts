/**
 * The MCP server over Streamable HTTP at /mcp, driven by the SDK's own client against the fixture marketplaces: every
 * tool listed is called and its structuredContent checked against its declared output schema; the key works as on
 * every route (missing → 401, revoked → refused, each call counted); progress while a marketplace holds the lookup;
 * cancellation stops the upstream request when nobody else waits on it.
 */
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_KEY, testApp } from './support/app.js';
import { startFixtureMarketplaces, type FixtureMarketplaces } from './support/fixture-marketplaces.js';
import { expectProblem } from './support/problem.js';
import { BUY_BAR, buyBarFor } from './support/slow-goat.js';

/** Arguments the fixture marketplaces answer, by tool; the rest are set up below (ids of what the calls made). */
const LOOKUP_ARGS: Record<string, Record<string, unknown>> = {
  chrono24_finder: { query: 'dial' },
  chrono24_search: { query: 'Rolex Submariner' },
  stockx_search: { query: 'dunk' },
  stockx_trends: { sort_by: 'most_active' },
  stockx_product: { query: 'nike-dunk-low-mcp' },
  goat_prices: { query: '1341930' },
  goat_product: { query: 'air-jordan-3-retro-mcp' },
  nike_product: { query: 'DD1391-100' },
  bestbuy_product: { query: '6500001' },
  goat_search: { query: 'dunk' },
  product_by_sku: { sku: 'DD1391-100' },
};

let m: FixtureMarketplaces;
let app: FastifyInstance;
let url: URL;
const clients: Client[] = [];

async function connect(headers: Record<string, string> = { 'x-api-key': TEST_KEY }): Promise<Client> {
  const client = new Client({ name: 'mcp-http-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  clients.push(client);
  return client;
}

beforeAll(async () => {
  m = await startFixtureMarketplaces();
  app = await testApp({
    ...m.env,
    MARKETLENS_WEBHOOK_ALLOW_HTTP: 'true',
    MARKETLENS_WEBHOOK_ALLOW_PRIVATE: 'true',
    // One GOAT request at a time: the cancellation test sees the cancelled lookup give its slot back.
    MARKETLENS_RESALE_B_CONCURRENCY: '1',
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  url = new URL(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/mcp`);
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await app?.close();
  await m?.stop();
});

const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

describe('MCP over Streamable HTTP', () => {
  it('lists a tool per lookup and per route, with annotations', async () => {
    const { tools } = await (await connect()).listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of [...Object.keys(LOOKUP_ARGS), 'price_history', 'list_tracked_products', 'track_product']) {
      expect(byName.has(name), name).toBe(true);
    }
    const product = byName.get('stockx_product')!;
    expect(product.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: true });
    expect(product.inputSchema.required).toEqual(['query']);
    expect(product.description).toMatch(/StockX|stockx/);
    expect(product.outputSchema?.type).toBe('object');
    expect(byName.get('price_history')!.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    expect(byName.get('untrack_product')!.annotations).toMatchObject({ destructiveHint: true });
    expect(byName.get('delete_alert_subscription')!.annotations).toMatchObject({ destructiveHint: true });
  });

  it('calls every tool; each structuredContent matches its declared output schema', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const validator = new AjvJsonSchemaValidator();
    const called: Record<string, CallToolResult> = {};
    const call = async (tool: Tool, args: Record<string, unknown>) => {
      const r = (await client.callTool({ name: tool.name, arguments: args })) as CallToolResult;
      called[tool.name] = r;
      expect(r.isError, `${tool.name}: ${textOf(r)}`).toBeFalsy();
      const check = validator.getValidator(tool.outputSchema!)(r.structuredContent);
      expect(check.errorMessage, tool.name).toBeUndefined();
      expect(check.valid, tool.name).toBe(true);
      expect(textOf(r)).not.toMatch(/^\s*[{[]/); // a summary, not a JSON dump
      return r;
    };
    const byName = new Map(tools.map((t) => [t.name, t]));
    const first = ['track_product', 'create_alert_subscription'];
    const last = ['set_tracked_paused', 'untrack_product', 'delete_alert_subscription'];
    const middle = tools.filter((t) => !first.includes(t.name) && !last.includes(t.name));
    // The lookups first, then the rest: price_history reads what they recorded once the recorder has written it (it
    // batches its writes every 250 ms, and a busy machine can call the next tool sooner).
    const lookupsFirst = [
      ...middle.filter((t) => t.annotations?.openWorldHint === true),
      ...middle.filter((t) => t.annotations?.openWorldHint !== true),
    ];
    for (const tool of lookupsFirst) {
      if (tool.name === 'price_history') await app.history.recorder.flush();
      if (tool.name in LOOKUP_ARGS || tool.annotations?.openWorldHint !== true) {
        await call(tool, LOOKUP_ARGS[tool.name] ?? toolArgs(tool.name));
      } else {
        // A lookup added after this test was written (its marketplace's fixture may not answer it): a result or a
        // tool error carrying the problem code, never a protocol error.
        const r = (await client.callTool({ name: tool.name, arguments: { query: 'mcp' } })) as CallToolResult;
        called[tool.name] = r;
        if (r.isError) expect(textOf(r)).toMatch(/^[a-z_]+ \(\d{3}\): /);
      }
    }
    const tracked = await call(byName.get('track_product')!, {
      operation: 'resale-b.prices',
      query: '1341930',
      interval: 900,
    });
    const hook = await call(byName.get('create_alert_subscription')!, {
      url: 'http://127.0.0.1:9/hook',
      events: ['price.changed'],
    });
    const list = await call(byName.get('list_tracked_products')!, {});
    expect((list.structuredContent as { data: { id: string }[] }).data.map((d) => d.id)).toContain(
      (tracked.structuredContent as { id: string }).id,
    );
    const trackedId = (tracked.structuredContent as { id: string }).id;
    const paused = await call(byName.get('set_tracked_paused')!, { id: trackedId, paused: true });
    expect(paused.structuredContent).toMatchObject({ id: trackedId, paused: true, nextRunAt: null });
    expect(textOf(paused)).toMatch(/^Paused .*paused\.$/);
    await call(byName.get('untrack_product')!, { id: trackedId });
    await call(byName.get('delete_alert_subscription')!, { id: (hook.structuredContent as { id: string }).id });
    expect(Object.keys(called).sort()).toEqual(tools.map((t) => t.name).sort());

    // The summaries an assistant quotes: product and prices with their currency.
    expect(textOf(called.goat_prices!)).toMatch(/USD/);
    expect(textOf(called.stockx_product!)).toMatch(/\d/);
    expect(textOf(called.product_by_sku!)).toMatch(/DD1391-100.*Nike found/);
    // The history: the series, and the chart as an image block.
    const history = called.price_history!;
    expect((history.structuredContent as { series: unknown[] }).series.length).toBeGreaterThan(0);
    const image = history.content.find((c) => c.type === 'image');
    expect(image?.type === 'image' && image.mimeType).toBe('image/png');
    const png = Buffer.from(image?.type === 'image' ? image.data : '', 'base64');
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(textOf(history)).toMatch(/\(blue line\) size \S+ · .* USD/);
    const svg = (await client.callTool({
      name: 'price_history',
      arguments: { ...toolArgs('price_history'), chart: 'svg' },
    })) as CallToolResult;
    expect(svg.content.find((c) => c.type === 'image')).toMatchObject({ mimeType: 'image/svg+xml' });
  });

  it('answers a route error as a tool error with the problem code', async () => {
    const r = (await (
      await connect()
    ).callTool({
      name: 'goat_prices',
      arguments: { query: '1341930', country: 'atlantis' },
    })) as CallToolResult;
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/^invalid_parameter \(400\): .*country/);
  });
});

/** Arguments of the non-lookup tools called in the loop. */
function toolArgs(name: string): Record<string, unknown> {
  if (name === 'price_history') return { operation: 'resale-b.prices', query: '1341930', country: 'US' };
  return {};
}

describe('the key on /mcp', () => {
  it('no key → 401 problem; the SDK client cannot connect', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expectProblem(
      { statusCode: res.status, headers: Object.fromEntries(res.headers), body: await res.text() },
      401,
      'missing_api_key',
    );
    await expect(connect({})).rejects.toThrow(/401/);
  });

  it('Authorization: Bearer works as x-api-key does', async () => {
    const { tools } = await (await connect({ authorization: `Bearer ${TEST_KEY}` })).listTools();
    expect(tools.length).toBeGreaterThan(0);
  });

  it('a revoked key is refused at once, inside an open session', async () => {
    const { key, record } = await app.marketlens.keys.create('mcp-revoke');
    const client = await connect({ 'x-api-key': key });
    const ok = (await client.callTool({ name: 'goat_prices', arguments: { query: '1341930' } })) as CallToolResult;
    expect(ok.isError).toBeFalsy();
    await app.marketlens.keys.revoke(record.id);
    await expect(client.callTool({ name: 'goat_prices', arguments: { query: '1341930' } })).rejects.toThrow(/403/);
  });

  it("each tool call counts against the key's quota; past it, a tool error with the code", async () => {
    const { key } = await app.marketlens.keys.create('mcp-quota', { daily_quota: 2 });
    const client = await connect({ 'x-api-key': key });
    await client.listTools(); // free, as /mcp itself is
    for (let i = 0; i < 2; i++) {
      const r = (await client.callTool({ name: 'goat_prices', arguments: { query: '1341930' } })) as CallToolResult;
      expect(r.isError, textOf(r)).toBeFalsy();
    }
    const over = (await client.callTool({ name: 'goat_prices', arguments: { query: '1341930' } })) as CallToolResult;
    expect(over.isError).toBe(true);
    expect(textOf(over)).toMatch(/^quota_exceeded \(429\)/);
    const usage = await app.inject({ url: '/api/v1/usage', headers: { 'x-api-key': key } });
    expect(usage.json().daily.used).toBe(2);
  });
});

/** A deferred promise. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** A GOAT buy_bar_data that holds each request until the test lets it go; tells when the n-th one arrived. */
function holdingGoat() {
  const released = deferred();
  const arrivals = [deferred(), deferred(), deferred()];
  let arrived = 0;
  let closedEarly = 0;
  m.fakes['resale-b'].on(BUY_BAR, async (req, res: ServerResponse) => {
    res.on('close', () => {
      if (!res.writableFinished) closedEarly++;
    });
    arrivals[arrived++]?.resolve();
    await released.promise;
    if (res.destroyed) return;
    const id = req.query.get('productTemplateId') ?? '0';
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(buyBarFor(id)));
  });
  return {
    release: released.resolve,
    /** The n-th request (from 1) reached the fake. */
    arrival: (n = 1) => arrivals[n - 1]!.promise,
    closedEarly: () => closedEarly,
  };
}

describe('progress and cancellation', () => {
  it('sends progress while a marketplace holds the lookup', async () => {
    const goat = holdingGoat();
    const client = await connect();
    const messages: string[] = [];
    const result = client.callTool({ name: 'goat_prices', arguments: { query: '7000001' } }, undefined, {
      onprogress: (p) => {
        messages.push(p.message ?? '');
        goat.release(); // the upstream answers only once the progress notification arrived
      },
    });
    const r = (await result) as CallToolResult;
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(messages[0]).toMatch(/waiting on GOAT/);
  });

  it('cancelling the call stops the upstream work nobody else waits on', async () => {
    const goat = holdingGoat();
    const failures: string[] = [];
    const stop = app.marketlens.liveResults.onFailure((f) => failures.push(f.error.code));
    const client = await connect();
    const cancel = new AbortController();
    const call = client.callTool({ name: 'goat_prices', arguments: { query: '7000002' } }, undefined, {
      signal: cancel.signal,
    });
    await goat.arrival(1);
    cancel.abort('the user changed their mind');
    await expect(call).rejects.toThrow();
    // GOAT takes one request at a time here (MARKETLENS_RESALE_B_CONCURRENCY=1): another lookup reaches it only once
    // the cancelled one let go of its slot, long before that one's deadline would have freed it.
    const next = app.inject({
      url: '/api/v1/scraper/resale-b/prices?query=7000012',
      headers: { 'x-api-key': TEST_KEY },
    });
    await goat.arrival(2);
    // Withdrawn, not failed: nothing recorded against GOAT (a timeout would be an upstream_timeout here).
    expect(failures).toEqual([]);
    goat.release();
    expect((await next).statusCode).toBe(200);
    stop();
  });

  it('a cancelled call leaves a fetch another caller waits on running', async () => {
    const goat = holdingGoat();
    // An API caller starts the lookup; the MCP call joins it (its progress says it waits), then is cancelled.
    const other = app.inject({
      url: '/api/v1/scraper/resale-b/prices?query=7000003',
      headers: { 'x-api-key': TEST_KEY },
    });
    await goat.arrival(1);
    const client = await connect();
    const cancel = new AbortController();
    let joined!: () => void;
    const waiting = new Promise<void>((r) => (joined = r));
    const call = client.callTool({ name: 'goat_prices', arguments: { query: '7000003' } }, undefined, {
      signal: cancel.signal,
      onprogress: () => joined(),
    });
    await waiting;
    cancel.abort('gone');
    await expect(call).rejects.toThrow();
    goat.release();
    const res = await other;
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['x-cache']).toBe('miss');
    expect(goat.closedEarly()).toBe(0);
  });
});
