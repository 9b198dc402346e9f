// Search across the marketplaces: by name or SKU on StockX and GOAT, by SKU on Nike (its product lookup), by name on
// Chrono24, by product URL (or SKU) on Best Buy. Each hit opens the product page.
import { api, ApiError } from './api.js';
import { h } from './dom.js';
import { money, marketplaceLabel } from './format.js';

/** @typedef {{ title: string, detail: string, href: string, price?: string }} Hit */

/** How each marketplace is searched and what a hit opens. */
const SOURCES = {
  'resale-a': {
    label: 'StockX — name or SKU',
    path: '/api/v1/scraper/resale-a/search',
    hits: hitsOf('resale-a.product'),
  },
  'resale-b': {
    label: 'GOAT — name or SKU',
    path: '/api/v1/scraper/resale-b/search',
    hits: hitsOf('resale-b.product'),
  },
  sportswear: {
    label: 'Nike — SKU (style code)',
    path: '/api/v1/scraper/sportswear/product',
    hits: productHit('sportswear.product'),
  },
  watchmarket: { label: 'Chrono24 — watch name', path: '/api/v1/scraper/watchmarket/search', hits: watchHits },
  electronics: {
    label: 'Best Buy — product URL or SKU',
    path: '/api/v1/scraper/electronics/product',
    hits: productHit('electronics.product'),
  },
};

/** @param {string} operation */
function hitsOf(operation) {
  /** @param {any} body @param {string} _query @returns {Hit[]} */
  return (body, _query) =>
    (Array.isArray(body) ? body : (body?.hits ?? body?.results ?? [])).map((/** @type {any} */ r) => ({
      title: r.name ?? r.title ?? r.slug,
      detail: [r.sku && `SKU ${r.sku}`, r.brand, r.colorway].filter(Boolean).join(' · '),
      href: `#/product/${operation}/${encodeURIComponent(r.slug ?? r.id)}`,
    }));
}

/** @param {string} operation */
function productHit(operation) {
  /** @param {any} r @param {string} query @returns {Hit[]} */
  return (r, query) => [
    {
      title: r.name ?? r.title ?? query,
      detail: [r.sku && `SKU ${r.sku}`, r.brand].filter(Boolean).join(' · '),
      href: `#/product/${operation}/${encodeURIComponent(query)}`,
    },
  ];
}

/** @param {any} body @param {string} query @returns {Hit[]} */
function watchHits(body, query) {
  const listings = Array.isArray(body) ? body : (body?.listings ?? body?.results ?? []);
  return listings.map((/** @type {any} */ l) => ({
    title: l.title ?? l.name ?? 'Listing',
    detail: [l.condition, l.year, l.location].filter(Boolean).join(' · '),
    price: l.price
      ? money(l.price.amount, l.price.currency_code ?? l.price.iso_currency ?? l.currency ?? null)
      : undefined,
    href: `#/product/watchmarket.search/${encodeURIComponent(query)}`,
  }));
}

/**
 * @param {string} [marketplace]
 * @param {string} [query]
 */
export function searchPage(marketplace = 'resale-a', query = '') {
  const select = h(
    'select',
    { id: 'search-marketplace', name: 'marketplace' },
    ...Object.entries(SOURCES).map(([id, s]) => h('option', { value: id, selected: id === marketplace }, s.label)),
  );
  const input = h('input', {
    id: 'search-query',
    name: 'query',
    type: 'search',
    required: true,
    value: query,
    autocomplete: 'off',
  });
  const results = h('section', {
    class: 'results',
    'aria-live': 'polite',
    'aria-busy': 'false',
    'aria-label': 'Search results',
  });
  const form = h(
    'form',
    { class: 'card search', role: 'search' },
    h('div', { class: 'field' }, h('label', { for: 'search-marketplace' }, 'Marketplace'), select),
    h('div', { class: 'field grow' }, h('label', { for: 'search-query' }, 'Name, SKU or URL'), input),
    h('button', { type: 'submit' }, 'Search'),
  );
  const run = async () => {
    const mp = /** @type {keyof typeof SOURCES} */ (select.value);
    const source = SOURCES[mp];
    const q = input.value.trim();
    if (!q) return;
    history.replaceState(null, '', `#/search/${mp}/${encodeURIComponent(q)}`);
    results.setAttribute('aria-busy', 'true');
    results.replaceChildren(h('p', { class: 'loading' }, `Searching ${marketplaceLabel(mp)}…`));
    try {
      const body = await api(source.path, { query: { query: q } });
      const hits = source.hits(body, q);
      results.replaceChildren(
        h('h2', {}, `${hits.length} result${hits.length === 1 ? '' : 's'} on ${marketplaceLabel(mp)}`),
        h(
          'ul',
          { class: 'hits' },
          ...hits.map((hit) =>
            h(
              'li',
              {},
              h('a', { href: hit.href }, hit.title),
              hit.detail && h('span', { class: 'muted' }, hit.detail),
              hit.price && h('span', { class: 'price' }, hit.price),
            ),
          ),
        ),
      );
    } catch (err) {
      results.replaceChildren(
        h('p', { class: 'error', role: 'alert' }, err instanceof ApiError ? err.message : String(err)),
      );
    } finally {
      results.setAttribute('aria-busy', 'false');
    }
  };
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void run();
  });
  if (query) void run();
  return h('div', {}, h('h1', {}, 'Search'), form, results);
}
