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
      const body = await api(source.path, { query: { query: q, ...(mp === 'watchmarket' ? finder.params() : {}) } });
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
  const finder = finderFilters();
  const syncFinder = () => (finder.element.hidden = select.value !== 'watchmarket');
  select.addEventListener('change', syncFinder);
  syncFinder();
  return h('div', {}, h('h1', {}, 'Search'), form, finder.element, results);
}

/**
 * Chrono24's search filters, found by name through the finder (`/api/v2/finder/watchmarket-search`, the catalog the
 * service ships): type "dial", pick "Dial colour: Black", and the search sends `dial_color=702`.
 */
function finderFilters() {
  const name = h('input', {
    id: 'finder-name',
    type: 'search',
    autocomplete: 'off',
    placeholder: 'e.g. dial, case material',
  });
  const find = h('button', { type: 'button', class: 'quiet' }, 'Find filters');
  const choice = h('select', { id: 'finder-choice', disabled: true }, h('option', { value: '' }, 'No filter'));
  const message = h('p', { class: 'help', role: 'status' });
  find.addEventListener('click', async () => {
    const q = name.value.trim();
    if (!q) return;
    try {
      const groups = await api('/api/v2/finder/watchmarket-search', { query: { query: q } });
      // Each group comes twice; the snake_case form (with filterGroupId) names the search parameter.
      const options = (Array.isArray(groups) ? groups : [])
        .filter((/** @type {any} */ g) => g.filterGroupId)
        .flatMap((/** @type {any} */ g) =>
          (g.values ?? [])
            .slice(0, 300)
            .map((/** @type {any} */ v) =>
              h('option', { value: `${g.filterGroupId}=${v[g.filterGroupId]}` }, `${g.label}: ${v.label}`),
            ),
        );
      choice.replaceChildren(h('option', { value: '' }, 'No filter'), ...options);
      choice.disabled = options.length === 0;
      message.textContent = options.length === 0 ? `No filter named “${q}”.` : `${options.length} filter values found.`;
    } catch (err) {
      message.textContent = err instanceof ApiError ? err.message : String(err);
    }
  });
  const element = h(
    'fieldset',
    { class: 'card finder' },
    h('legend', {}, 'Chrono24 filter (optional)'),
    h('div', { class: 'field' }, h('label', { for: 'finder-name' }, 'Filter name'), name),
    find,
    h('div', { class: 'field' }, h('label', { for: 'finder-choice' }, 'Filter value'), choice),
    message,
  );
  return {
    element,
    /** @returns {Record<string, string>} */
    params: () => {
      const [param, code] = choice.value.split('=');
      return param && code ? { [param]: code } : {};
    },
  };
}
