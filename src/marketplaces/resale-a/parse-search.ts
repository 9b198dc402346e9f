/**
 * Search answers → spec §2.2 hits. Pure. Accepts what StockX serves and what public clients saved of it:
 * - our `Browse` GraphQL answer (or the site's own Browse answer, which lacks `styleId` and the Colorway trait);
 * - a search page (`__NEXT_DATA__` HTML, or its JSON) with the `Browse` entry of the react-query cache;
 * - a JSON array of browse nodes (as scrapers cut them out of the page).
 */
import { asRecord, at } from '../../util/json-path.js';
import { upstreamChanged } from '../../errors.js';
import { graphqlData } from './graphql-response.js';
import { SEARCH_OPERATION } from './graphql-documents.js';
import { pageJson, walkObjects } from './parse-page.js';
import { titleOf } from './parse-product.js';
import { upstreamSearchProductSchema, type SearchHit, type UpstreamSearchProduct } from './schema.js';

export const MAX_HITS = 10;

/**
 * Any supported search body → up to 10 hits, in StockX's order, one per product.
 * @example parseSearch('{"data":{"browse":{"results":{"edges":[…]}}}}')[0].slug
 */
export function parseSearch(body: string): SearchHit[] {
  return toHits(searchNodes(body));
}

/** The edge nodes of a search body, whatever its form. */
export function searchNodes(body: string): unknown[] {
  const trimmed = body.trimStart();
  if (trimmed.startsWith('<')) return nodesOfNextData(pageJson(body, 'search page'), body);
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw upstreamChanged('resale-a', 'search answer is neither HTML nor JSON', body);
  }
  if (Array.isArray(json)) return json;
  const page = asRecord(json);
  if (page && (page.props || page.buildId)) return nodesOfNextData(page, body);
  const data = graphqlData(body, 'browse', SEARCH_OPERATION);
  return edgesOf(data.browse, body);
}

function edgesOf(browse: unknown, body: string): unknown[] {
  const edges = at(browse, 'results', 'edges');
  if (!Array.isArray(edges)) throw upstreamChanged('resale-a', 'browse answer has no results.edges', body);
  return edges.map((e: unknown) => asRecord(e)?.node);
}

/** The Browse entry of the page's react-query cache; else the first `results{edges}` anywhere (as scrapers do). */
function nodesOfNextData(json: unknown, body: string): unknown[] {
  const queries = at(json, 'props', 'pageProps', 'req', 'appContext', 'states', 'query', 'value', 'queries');
  if (Array.isArray(queries)) {
    const browse: unknown = queries.find((q: unknown) => at(q, 'queryKey', 0) === 'Browse');
    const browseData = at(browse, 'state', 'data', 'browse');
    if (browseData) return edgesOf(browseData, body);
  }
  for (const { key, value } of walkObjects(json)) {
    if (key === 'results' && Array.isArray(value.edges)) return value.edges.map((e: unknown) => asRecord(e)?.node);
  }
  throw upstreamChanged('resale-a', 'search page has no Browse results', body);
}

/** Nodes → hits: Variant nodes (a slug or GTIN query) are unwrapped to their product; duplicates dropped. */
export function toHits(nodes: unknown[]): SearchHit[] {
  const hits: SearchHit[] = [];
  const seen = new Set<string>();
  for (const raw of nodes) {
    if (raw === null || typeof raw !== 'object') continue;
    const node = raw as Record<string, unknown>;
    const productNode = node.product && typeof node.product === 'object' ? node.product : node;
    const parsed = upstreamSearchProductSchema.safeParse(productNode);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw upstreamChanged(
        'resale-a',
        `search node: ${issue?.path.join('.')} ${issue?.message}`,
        JSON.stringify(node),
      );
    }
    const hit = toHit(parsed.data);
    if (seen.has(hit.id)) continue;
    seen.add(hit.id);
    hits.push(hit);
    if (hits.length === MAX_HITS) break;
  }
  return hits;
}

function toHit(p: UpstreamSearchProduct): SearchHit {
  const name = titleOf(p);
  if (name === undefined) throw upstreamChanged('resale-a', `search node ${p.urlKey} has no title`);
  const colorway = p.traits?.find((t) => t.name.toLowerCase() === 'colorway')?.value;
  return {
    id: p.id,
    productId: p.id,
    slug: p.urlKey,
    name,
    sku: blankToNull(p.styleId),
    category: blankToNull(p.productCategory),
    brand: blankToNull(p.brand),
    image: blankToNull(p.media?.thumbUrl) ?? blankToNull(p.media?.smallImageUrl) ?? blankToNull(p.media?.imageUrl),
    colorway: typeof colorway === 'string' ? blankToNull(colorway) : null,
  };
}

function blankToNull(v: string | null | undefined): string | null {
  return typeof v === 'string' && v.trim() !== '' ? v : null;
}
