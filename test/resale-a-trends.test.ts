/**
 * resale-a.trends (beyond the spec, CONTRACT §8) against a fake StockX serving real Browse captures: the same
 * Browse request as search with the site's own sort key for each `sort_by` (checked against the real
 * `getBrowseSorts` capture), `country` as the visitor's region, hits in the search-hit shape (spec 2.2).
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { searchHitProblems } from './fixtures/resale-a/spec-fields.js';
import { auth, testApp } from './support/app.js';
import { FakeUpstream } from './support/fake-upstream.js';
import { expectProblem } from './support/problem.js';
import { readCapture, sharedAvailable } from './support/shared.js';

/** An edge's node in the captured Browse answer: a Product, or a Variant carrying its product. */
interface BrowseNode {
  id: string;
  urlKey: string;
  title: string;
  brand: string;
  product?: BrowseNode;
}

const TRENDS = '/api/v1/scraper/resale-a/trends';
const headers = { ...auth, 'cache-control': 'no-cache' };

/**
 * The real Browse answers (LucasChevrier 2023-12; they hold the body's `data`, so the fake wraps them as GraphQL
 * does). No capture exists per sort order, so each sort is served a different one of them: the point is the request
 * the sort produces and that a real answer becomes hits.
 */
const CAPTURES = {
  featured: 'stockx/lucaschevrier_browse-adidas-yeezy-boost-1.json',
  most_active: 'stockx/lucaschevrier_browse-adidas-yeezy-boost-test.json',
  release_date: 'stockx/lucaschevrier_test11.json',
} as const;

/** The site's sort keys and orders, from the real `getBrowseSorts` answer. */
function siteSort(seoOrKey: string): { id: string; order: string } {
  const sorts = JSON.parse(readCapture('stockx/lucaschevrier_browseSort.json')).data.browseSorts as Array<
    Record<string, string>
  >;
  const s = sorts.find((x) => x.key === seoOrKey);
  if (!s) throw new Error(`no sort ${seoOrKey} in the capture`);
  return { id: s.key!, order: s.order! };
}

describe.runIf(sharedAvailable)('resale-a trends (beyond the spec)', () => {
  const stockx = new FakeUpstream();
  let app: FastifyInstance;
  let served = '';

  beforeAll(async () => {
    await stockx.start();
    app = await testApp({ MARKETLENS_RESALE_A_ORIGIN: stockx.origin });
  });
  afterAll(async () => {
    await app.close();
    await stockx.stop();
  });
  beforeEach(() => {
    stockx.reset();
    stockx.on('POST /api/p/e', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(`{"data":${served}}`);
    });
  });

  const browseCalls = () =>
    stockx.requests.filter((r) => r.path === '/api/p/e').map((r) => ({ req: r, body: JSON.parse(r.body) }));

  it.each([
    ['featured', 'featured'],
    ['most_active', 'most-active'],
    ['release_date', 'release_date'],
  ] as const)("sort_by=%s sends the site's sort %s and answers the capture's products as hits", async (sortBy, key) => {
    const capture = readCapture(CAPTURES[sortBy]);
    served = capture;
    const res = await app.inject({ url: `${TRENDS}?sort_by=${sortBy}&query=yeezy%20boost&country=FR`, headers });
    expect(res.statusCode, res.body).toBe(200);

    const calls = browseCalls();
    expect(calls).toHaveLength(1);
    const { req, body } = calls[0]!;
    expect(body.operationName).toBe('Browse');
    expect(body.variables).toEqual({
      query: 'yeezy boost',
      filtersVersion: 4,
      sort: siteSort(key),
      page: { index: 1, limit: 10 },
    });
    expect(req.headers['selected-country']).toBe('FR');

    const hits = res.json();
    const edges = JSON.parse(capture).browse.results.edges as Array<{ node: BrowseNode }>;
    expect(hits).toHaveLength(edges.length);
    for (const [i, hit] of hits.entries()) {
      expect(searchHitProblems(hit)).toEqual([]);
      const product = edges[i]!.node.product ?? edges[i]!.node; // a Variant edge is given as its product
      expect(hit).toMatchObject({ id: product.id, slug: product.urlKey, name: product.title, brand: product.brand });
    }
  });

  it('is the search request when sort_by is featured: without parameters, the default listing of country US', async () => {
    served = readCapture(CAPTURES.featured);
    const res = await app.inject({ url: TRENDS, headers });
    expect(res.statusCode, res.body).toBe(200);
    const search = await app.inject({ url: '/api/v1/scraper/stockx/search', headers });
    expect(search.json()).toEqual(res.json());
    const [trends, plain] = browseCalls();
    expect(trends!.body).toEqual(plain!.body);
    expect(trends!.req.headers['selected-country']).toBe('US');
  });

  it.each([
    ['sort_by=cheapest', 'sort_by'],
    ['sort_by=most-active', 'sort_by'],
    ['country=ZZ', 'country'],
    ['limit=5', 'limit'],
  ])('%s → 400 naming %s, before any upstream request', async (qs, param) => {
    const body = expectProblem(await app.inject({ url: `${TRENDS}?${qs}`, headers }), 400, 'invalid_parameter');
    expect(body.errors.map((e: { param: string }) => e.param)).toEqual([param]);
    expect(stockx.requests).toHaveLength(0);
  });

  it('is served under the alias stockx/trends and documented under its own tag', async () => {
    served = readCapture(CAPTURES.featured);
    expect((await app.inject({ url: '/api/v1/scraper/stockx/trends?sort_by=release_date', headers })).statusCode).toBe(
      200,
    );
    const doc = (await app.inject({ url: '/openapi.json' })).json();
    const entry = doc.paths[TRENDS].get;
    expect(entry.tags).toEqual(['Beyond the spec']);
    const sortParam = entry.parameters.find((p: { name: string }) => p.name === 'sort_by');
    expect(sortParam.schema.enum).toEqual(['featured', 'most_active', 'release_date']);
  });
});
