/**
 * The embedded JSON of StockX pages: `__NEXT_DATA__` (react-query cache under
 * `props.pageProps.req.appContext.states.query.value.queries[]`), with the older `script[data-name=query]`
 * (`window.… = {…};`) as fallback. The product page's queryKey is unknown (notes §8), so the product node is found
 * by walking the JSON, as public scrapers do.
 */
import { MarketlensError, upstreamChanged } from '../../errors.js';
import { extractNextData } from '../../util/next-data.js';
import { judgeAnswer } from '../../upstream/block-detection.js';
import { resaleAMarketplace } from './marketplace.js';

/**
 * The page's embedded JSON. No JSON: a challenge page → upstream_blocked, anything else → upstream_changed.
 * A Next.js 404/error page → not_found.
 * @example pageJson(html).props.pageProps
 */
export function pageJson(html: string, what: string): Record<string, unknown> {
  let json: unknown;
  try {
    json = extractNextData(html) ?? extractQueryScript(html);
  } catch {
    throw upstreamChanged('resale-a', `${what}: embedded JSON does not parse`, html);
  }
  if (json === undefined || json === null || typeof json !== 'object' || Array.isArray(json)) {
    // Live answers were judged by the client already; a saved file (`marketlens parse`) meets the same judge here.
    if (judgeAnswer({ status: 200, headers: {}, body: html }, { expect: 'html' }, resaleAMarketplace))
      throw new MarketlensError('upstream_blocked', `resale-a answered the ${what} with a bot challenge`);
    throw upstreamChanged('resale-a', `${what} has no __NEXT_DATA__`, html);
  }
  const page = (json as Record<string, unknown>).page;
  if (page === '/404' || page === '/_error') {
    throw new MarketlensError('not_found', `resale-a has no such ${what.replace(/ page$/, '')}`);
  }
  return json as Record<string, unknown>;
}

/** `<script data-name="query">window.__REACT_QUERY_STATE__ = {…};</script>` → the object. */
function extractQueryScript(html: string): unknown {
  const at = html.search(/data-name=["']?query["']?/);
  if (at === -1) return undefined;
  const start = html.indexOf('>', at);
  const end = html.indexOf('</script>', start);
  if (start === -1 || end === -1) return undefined;
  const text = html.slice(start + 1, end);
  const eq = text.indexOf('=');
  return JSON.parse((eq === -1 ? text : text.slice(eq + 1)).trim().replace(/;\s*$/, ''));
}

/** Every object in a JSON tree, with the key it sits under (iterative: page JSON can be deep). */
export function* walkObjects(root: unknown): Generator<{ key: string | undefined; value: Record<string, unknown> }> {
  const stack: Array<{ key: string | undefined; value: unknown }> = [{ key: undefined, value: root }];
  while (stack.length > 0) {
    const { key, value } = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ key, value: value[i] });
      continue;
    }
    const obj = value as Record<string, unknown>;
    yield { key, value: obj };
    const entries = Object.entries(obj);
    for (let i = entries.length - 1; i >= 0; i--) stack.push({ key: entries[i]![0], value: entries[i]![1] });
  }
}

/**
 * The catalog product node of a product page: an object with `id`, `urlKey` and `variants[]`. Preference: urlKey
 * equal to one of `slugs`, then breadcrumbs (the page's own product, not a related one), then sitting under `product`.
 * @example findProductNode(nextData, ['nike-x-stussy-bucket-hat-black']).title
 */
export function findProductNode(root: unknown, slugs: readonly string[]): Record<string, unknown> | undefined {
  let best: { score: number; node: Record<string, unknown> } | undefined;
  const wanted = new Set(slugs.map((s) => s.toLowerCase()));
  for (const { key, value } of walkObjects(root)) {
    if (typeof value.id !== 'string' || typeof value.urlKey !== 'string' || !Array.isArray(value.variants)) continue;
    // Ties (the same product cached under several queries) go to the fullest copy.
    const score =
      (wanted.has(value.urlKey.toLowerCase()) ? 100 : 0) +
      (Array.isArray(value.breadcrumbs) ? 10 : 0) +
      (key === 'product' ? 5 : 0) +
      (typeof value.title === 'string' ? 1 : 0) +
      Math.min(Object.keys(value).length, 999) / 1000;
    if (!best || score > best.score) best = { score, node: value };
  }
  // Without a slug match, only a node with breadcrumbs is surely the page's product (search pages hold many others).
  return best && best.score >= 10 ? best.node : undefined;
}
