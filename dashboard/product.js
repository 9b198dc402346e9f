// The product page: headline fields, the size table (across marketplaces from /api/v1/products/{sku} when the
// service has it, else the marketplace's own sizes), the price history chart per size (7 d / 30 d / 1 y), and the
// buttons that track the product and create an alert through the same API routes.
import { api, ApiError } from './api.js';
import { lineChart } from './chart.js';
import { h, notify } from './dom.js';
import { kindLabel, marketplaceLabel, money } from './format.js';

const DAY = 86_400_000;
/** @typedef {readonly [string, string, number, string | undefined]} Range */
/** @type {Range[]} */
const RANGES = [
  ['7d', '7 days', 7 * DAY, undefined],
  ['30d', '30 days', 30 * DAY, undefined],
  ['1y', '1 year', 365 * DAY, 'day'],
];
const SNEAKERS = ['resale-a', 'resale-b', 'sportswear'];

/** @param {string} operation e.g. `resale-a.product` */
function pathOf(operation) {
  const [mp, op] = operation.split('.');
  return `/api/v1/scraper/${mp}/${op}`;
}

/** The lookup parameters the page sends: StockX gets its currency stated, so every price is labelled with it. */
/** @param {string} operation @param {string} query @returns {Record<string, string>} */
function paramsOf(operation, query) {
  return operation.startsWith('resale-a.') ? { query, currency: 'USD' } : { query };
}

/**
 * @param {string} operation
 * @param {string} query
 */
export async function productPage(operation, query) {
  const marketplace = operation.split('.')[0] ?? '';
  const params = paramsOf(operation, query);
  const record = await api(pathOf(operation), { query: params });
  const currency = params.currency ?? record?.currency ?? record?.prices?.currency ?? null;
  const name = record?.name ?? record?.title ?? query;
  const page = h('article', { class: 'product' });
  page.append(
    h('p', { class: 'muted' }, marketplaceLabel(marketplace)),
    h('h1', {}, name),
    headline(record, currency),
    actions(operation, params, record),
  );
  // The size table and the history are independent: asked for together.
  const [sizes, history] = await Promise.all([
    SNEAKERS.includes(marketplace) ? sizeTable(record, marketplace, currency) : undefined,
    historySection(operation, params, SNEAKERS.includes(marketplace) ? record?.sku : undefined),
  ]);
  if (sizes) page.append(sizes);
  page.append(history);
  return page;
}

/** @param {any} r @param {string | null} currency */
function headline(r, currency) {
  /** @type {[string, string | number | null | undefined][]} */
  const fields = [
    ['SKU', r?.sku],
    ['Brand', r?.brand],
    ['Colourway', r?.colorway ?? r?.traits?.colorway],
    ['Model', r?.model],
    ['Reference', r?.reference],
  ];
  const prices = [
    ['Lowest ask', r?.market?.bids?.lowest_ask],
    ['Highest bid', r?.market?.bids?.highest_bid],
    ['Last sale', r?.market?.sales?.last_sale],
    ['Price', r?.prices?.current ?? r?.price?.current ?? r?.current_price],
  ].filter(([, v]) => typeof v === 'number');
  return h(
    'dl',
    { class: 'facts' },
    ...fields
      .filter(([, v]) => v !== null && v !== undefined && v !== '')
      .flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, String(v))]),
    ...prices.flatMap(([k, v]) => [h('dt', {}, String(k)), h('dd', {}, money(/** @type {number} */ (v), currency))]),
  );
}

/** Size rows from the cross-marketplace product answer, else from this marketplace's record. */
/** @param {any} record @param {string} marketplace @param {string | null} currency */
async function sizeTable(record, marketplace, currency) {
  const section = h(
    'section',
    { 'aria-labelledby': 'sizes-title', class: 'card' },
    h('h2', { id: 'sizes-title' }, 'Prices by size'),
  );
  /** @type {{ size: string, cells: { marketplace: string, kind: string, amount: number | null, currency: string | null }[], bestBuy?: any, bestSell?: any }[]} */
  let rows = [];
  if (record?.sku) {
    try {
      const answer = await api(`/api/v1/products/${encodeURIComponent(record.sku)}`);
      rows = (answer.sizes ?? []).map((/** @type {any} */ s) => ({
        size: `${s.size} ${s.size_system === 'us_men' ? 'US M' : s.size_system === 'us_women' ? 'US W' : s.size_system === 'us_kids' ? 'US K' : ''}`.trim(),
        cells: s.offers.map((/** @type {any} */ o) => ({
          marketplace: o.marketplace,
          kind: o.kind,
          amount: o.amount,
          currency: o.currency,
        })),
        bestBuy: s.best_buy,
        bestSell: s.best_sell,
      }));
    } catch (err) {
      // Not on this service yet (404 route_not_found), or the SKU is unknown across marketplaces: this one's sizes.
      if (!(err instanceof ApiError) || err.status === 401) throw err;
    }
  }
  if (rows.length === 0) rows = ownSizes(record, marketplace, currency);
  if (rows.length === 0) {
    section.append(h('p', { class: 'muted' }, 'No size prices in this record.'));
    return section;
  }
  const columns = [...new Set(rows.flatMap((r) => r.cells.map((c) => `${c.marketplace}|${c.kind}`)))];
  const best = (/** @type {any} */ o, /** @type {{ marketplace: string, kind: string, amount: number | null }} */ c) =>
    o && o.marketplace === c.marketplace && o.kind === c.kind && o.amount === c.amount;
  section.append(
    h(
      'p',
      { class: 'help' },
      'Best buy (lowest ask or price) and best sell (highest bid) of each size are highlighted.',
    ),
    h(
      'div',
      { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': 'Prices by size (scrolls sideways)' },
      h(
        'table',
        { class: 'sizes' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'col' }, 'Size'),
            ...columns.map((c) => {
              const [mp = '', kind = ''] = c.split('|');
              return h('th', { scope: 'col' }, `${marketplaceLabel(mp)} ${kindLabel(kind).toLowerCase()}`);
            }),
          ),
        ),
        h(
          'tbody',
          {},
          ...rows.map((row) =>
            h(
              'tr',
              {},
              h('th', { scope: 'row' }, row.size),
              ...columns.map((col) => {
                const cell = row.cells.find((c) => `${c.marketplace}|${c.kind}` === col);
                if (!cell) return h('td', {}, '—');
                const isBuy = best(row.bestBuy, cell);
                const isSell = best(row.bestSell, cell);
                return h(
                  'td',
                  {
                    class: isBuy ? 'best-buy' : isSell ? 'best-sell' : undefined,
                    'data-kind': cell.kind,
                    'data-marketplace': cell.marketplace,
                  },
                  money(cell.amount, cell.currency),
                  isBuy && h('span', { class: 'badge' }, ' best buy'),
                  isSell && h('span', { class: 'badge' }, ' best sell'),
                );
              }),
            ),
          ),
        ),
      ),
    ),
  );
  return section;
}

/** StockX variants (and GOAT/Nike sizes where the record lists them) as size rows, best buy/sell within them. */
/** @param {any} record @param {string} marketplace @param {string | null} currency */
function ownSizes(record, marketplace, currency) {
  const variants = Array.isArray(record?.variants) ? record.variants : [];
  return variants.map((/** @type {any} */ v) => {
    const size = v.traits?.size ?? v.sizes?.[0]?.size ?? v.size ?? '?';
    const ask = v.market?.bids?.lowest_ask ?? null;
    const bid = v.market?.bids?.highest_bid ?? null;
    const last = v.market?.sales?.last_sale ?? null;
    const cells = [
      { marketplace, kind: 'lowest_ask', amount: ask, currency },
      { marketplace, kind: 'highest_bid', amount: bid, currency },
      { marketplace, kind: 'last_sale', amount: last, currency },
    ];
    return {
      size: String(size),
      cells,
      bestBuy: ask === null ? null : cells[0],
      bestSell: bid === null ? null : cells[1],
    };
  });
}

/**
 * The history across marketplaces (`/api/v1/products/{sku}/history`) when the service has it for this SKU, else this
 * marketplace's own (`/api/v1/history` of the lookup).
 * @param {string} operation @param {Record<string, string>} params @param {string | undefined} sku
 */
async function historySection(operation, params, sku) {
  const section = h(
    'section',
    { 'aria-labelledby': 'history-title', class: 'card' },
    h('h2', { id: 'history-title' }, 'Price history'),
  );
  const sizeSelect = h('select', { id: 'history-size' });
  const rangeGroup = h('div', { class: 'segmented', role: 'group', 'aria-label': 'Range' });
  const chartHolder = h('div', { class: 'chart-holder' });
  section.append(
    h('div', { class: 'controls' }, h('label', { for: 'history-size' }, 'Size'), sizeSelect, rangeGroup),
    chartHolder,
  );
  /** @type {any[]} */
  let series = [];
  /** @type {Range} */
  let range = RANGES[1] ?? ['30d', '30 days', 30 * DAY, undefined];
  const draw = () => {
    const size = sizeSelect.value;
    const lines = series
      .filter((s) => (s.size ?? '') === size)
      .map((s) => ({
        label: `${marketplaceLabel(s.marketplace ?? operation.split('.')[0] ?? '')} ${kindLabel(s.kind).toLowerCase()}${s.condition && s.condition !== 'new' ? ` (${s.condition})` : ''}`,
        currency: s.currency,
        points: s.points.map((/** @type {any} */ p) => ({ t: Date.parse(p.t), v: p.last })),
      }));
    const to = Date.now();
    chartHolder.replaceChildren(
      lineChart(lines, {
        title: `Price history${size ? `, size ${size}` : ''}, last ${range[1]}`,
        from: to - range[2],
        to,
      }),
    );
  };
  const load = async () => {
    chartHolder.setAttribute('aria-busy', 'true');
    const span = { from: new Date(Date.now() - range[2]).toISOString(), interval: range[3] };
    /** @type {any} */
    let body;
    if (sku) {
      try {
        body = await api(`/api/v1/products/${encodeURIComponent(sku)}/history`, { query: span });
      } catch (err) {
        // No such route here, or no product answer has linked this SKU yet: this marketplace's own history.
        if (!(err instanceof ApiError) || err.status === 401) throw err;
      }
    }
    body ??= await api('/api/v1/history', { query: { operation, ...params, ...span } });
    chartHolder.setAttribute('aria-busy', 'false');
    series = body.series ?? [];
    const sizes = [...new Set(series.map((s) => s.size ?? ''))].sort(
      (a, b) => (parseFloat(a) || 0) - (parseFloat(b) || 0),
    );
    const previous = sizeSelect.value;
    sizeSelect.replaceChildren(
      ...sizes.map((s) => h('option', { value: s, selected: s === previous }, s === '' ? 'All sizes (product)' : s)),
    );
    draw();
  };
  for (const r of RANGES) {
    const button = h('button', { type: 'button', class: 'quiet', 'aria-pressed': String(r === range) }, r[1]);
    button.addEventListener('click', async () => {
      range = r;
      for (const b of rangeGroup.querySelectorAll('button')) b.setAttribute('aria-pressed', String(b === button));
      await load();
    });
    rangeGroup.append(button);
  }
  sizeSelect.addEventListener('change', draw);
  await load();
  return section;
}

/** Track and alert buttons. @param {string} operation @param {Record<string, string>} params @param {any} record */
function actions(operation, params, record) {
  const status = h('p', { class: 'action-status', role: 'status' });
  const track = h('button', { type: 'button' }, 'Track this product');
  track.addEventListener('click', async () => {
    try {
      const tracked = await api('/api/v1/db/products', { method: 'POST', body: { operation, ...params } });
      status.textContent = `Tracked: refreshed every ${Math.round(tracked.interval / 60)} min.`;
      track.disabled = true;
    } catch (err) {
      status.textContent = err instanceof ApiError ? err.message : String(err);
    }
  });
  // Sneakers with a SKU can also be tracked as one product across StockX, GOAT and Nike (each run one product answer;
  // this is what spread alerts watch).
  const sku =
    SNEAKERS.includes(operation.split('.')[0] ?? '') && typeof record?.sku === 'string' ? record.sku : undefined;
  const trackSku = sku ? h('button', { type: 'button', class: 'quiet' }, 'Track across marketplaces (SKU)') : undefined;
  trackSku?.addEventListener('click', async () => {
    try {
      const body = { sku, ...(params.currency ? { currency: params.currency } : {}) };
      const tracked = await api('/api/v1/db/products', { method: 'POST', body });
      status.textContent = `Tracked ${sku} across marketplaces: refreshed every ${Math.round(tracked.interval / 60)} min.`;
      trackSku.disabled = true;
    } catch (err) {
      status.textContent = err instanceof ApiError ? err.message : String(err);
    }
  });
  const alertForm = alertFormFor(operation, record, status, sku);
  const toggle = h(
    'button',
    { type: 'button', 'aria-expanded': 'false', 'aria-controls': 'alert-form' },
    'Create an alert',
  );
  toggle.addEventListener('click', () => {
    alertForm.hidden = !alertForm.hidden;
    toggle.setAttribute('aria-expanded', String(!alertForm.hidden));
    if (!alertForm.hidden) alertForm.querySelector('input')?.focus();
  });
  return h('div', { class: 'actions' }, h('div', { class: 'buttons' }, track, trackSku, toggle), alertForm, status);
}

/** @param {string} operation @param {any} record @param {HTMLElement} status @param {string | undefined} sku */
function alertFormFor(operation, record, status, sku) {
  const url = h('input', { id: 'alert-url', type: 'url', required: true, placeholder: 'https://…' });
  const type = h(
    'select',
    { id: 'alert-type' },
    h('option', { value: 'below' }, 'Price falls below'),
    h('option', { value: 'change' }, 'Price changes by at least (%)'),
    sku && h('option', { value: 'spread' }, 'Spread (best sell − best buy) reaches (% of buy)'),
  );
  const amount = h('input', { id: 'alert-amount', type: 'number', min: '0', step: 'any', required: true });
  const size = h('input', { id: 'alert-size', type: 'text', placeholder: 'any' });
  const form = h(
    'form',
    { id: 'alert-form', class: 'alert-form', hidden: true, 'aria-label': 'New alert' },
    h('div', { class: 'field' }, h('label', { for: 'alert-url' }, 'Webhook URL (Discord, Slack or your own)'), url),
    h('div', { class: 'field' }, h('label', { for: 'alert-type' }, 'When'), type),
    h('div', { class: 'field' }, h('label', { for: 'alert-amount' }, 'Threshold'), amount),
    h('div', { class: 'field' }, h('label', { for: 'alert-size' }, 'Size (optional)'), size),
    h('button', { type: 'submit' }, 'Create alert'),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const value = Number(amount.value);
    // A spread alert is about the product across marketplaces (by SKU: track it by SKU for it to run); the others
    // about this marketplace's lookup.
    /** @type {Record<string, unknown>} */
    const filter =
      type.value === 'spread'
        ? { skus: [sku], min_spread_pct: value }
        : { operations: [operation], products: [String(record?.id ?? record?.sku ?? '')].filter(Boolean) };
    if (size.value.trim()) filter.sizes = [size.value.trim()];
    if (type.value === 'below') filter.below = value;
    else if (type.value === 'change') filter.min_change_pct = value;
    const event = type.value === 'spread' ? 'spread.above' : type.value === 'change' ? 'price.changed' : 'price.below';
    try {
      const created = await api('/api/v1/webhooks', {
        method: 'POST',
        body: {
          url: url.value,
          events: [event],
          filter,
          description: record?.name ?? null,
        },
      });
      await api(`/api/v1/webhooks/${encodeURIComponent(created.id)}/test`, { method: 'POST' });
      status.replaceChildren(
        'Alert created; a test event is on its way. Signing secret (shown once): ',
        h('code', {}, created.secret),
      );
      form.hidden = true;
      notify('Alert created');
    } catch (err) {
      status.textContent = err instanceof ApiError ? err.message : String(err);
    }
  });
  return form;
}
