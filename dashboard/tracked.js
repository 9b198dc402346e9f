// Tracked products: each with its last price, change over the last 30 days, next refresh and a sparkline; pause,
// resume, remove.
import { api, ApiError } from './api.js';
import { sparkline } from './chart.js';
import { h, notify } from './dom.js';
import { dateTime, kindLabel, marketplaceLabel, money, percent } from './format.js';

const DAY = 86_400_000;

export async function trackedPage() {
  const { data: docs } = await api('/api/v1/tracked');
  const list = h('ul', { class: 'tracked' });
  const page = h('div', {}, h('h1', {}, 'Tracked products'), list);
  if (docs.length === 0)
    list.replaceWith(h('p', { class: 'muted' }, 'Nothing tracked yet: open a product and press “Track this product”.'));
  for (const job of docs) list.append(await trackedItem(job));
  return page;
}

/** @param {any} job */
async function trackedItem(job) {
  // A product tracked by SKU (operation `product`) is one product answer across marketplaces.
  const bySku = job.operation === 'product';
  const query = String((bySku ? job.params.sku : job.params.query) ?? '');
  const marketplace = bySku ? 'StockX, GOAT and Nike (by SKU)' : (String(job.operation).split('.')[0] ?? '');
  /** @type {any} */
  let line;
  try {
    const span = { from: new Date(Date.now() - 30 * DAY).toISOString(), interval: 'hour' };
    const body = bySku
      ? await api(`/api/v1/products/${encodeURIComponent(query)}/history`, { query: span })
      : await api('/api/v1/history', { query: { operation: job.operation, ...stringParams(job.params), ...span } });
    // The product's own line (no size) when there is one, else the first: one figure per product.
    line = body.series.find((/** @type {any} */ s) => s.size === null) ?? body.series[0];
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) throw err;
  }
  const points = line ? line.points.map((/** @type {any} */ p) => ({ t: Date.parse(p.t), v: p.last })) : [];
  const last = points.at(-1);
  const first = points[0];
  const change = last && first && first.v ? ((last.v - first.v) / first.v) * 100 : null;
  const remove = h('button', { type: 'button', class: 'quiet' }, 'Remove');
  const pause = h('button', { type: 'button', class: 'quiet' });
  const nextRefresh = h('dd', {});
  // A paused product has no next refresh (nextRunAt is null): the list says so instead.
  const showPaused = () => {
    pause.textContent = job.paused ? 'Resume' : 'Pause';
    nextRefresh.textContent = job.paused ? 'paused' : dateTime(job.nextRunAt);
    item.classList.toggle('paused', Boolean(job.paused));
  };
  const item = h(
    'li',
    { class: 'card tracked-item' },
    h(
      'div',
      {},
      h(
        'a',
        {
          href: bySku
            ? `#/search/resale-a/${encodeURIComponent(query)}`
            : `#/product/${job.operation}/${encodeURIComponent(query)}`,
        },
        query,
      ),
      h('p', { class: 'muted' }, marketplaceLabel(marketplace)),
    ),
    h(
      'dl',
      { class: 'facts compact' },
      h(
        'dt',
        {},
        line ? `Last (${kindLabel(line.kind).toLowerCase()}${line.size ? `, size ${line.size}` : ''})` : 'Last price',
      ),
      h('dd', {}, last ? money(last.v, line.currency) : '—'),
      h('dt', {}, 'Change (30 days)'),
      h('dd', {}, percent(change)),
      h('dt', {}, 'Next refresh'),
      nextRefresh,
    ),
    sparkline(points),
    h('div', { class: 'buttons' }, pause, remove),
  );
  pause.addEventListener('click', async () => {
    const updated = await api(`/api/v1/db/products/${encodeURIComponent(job.id)}`, {
      method: 'PATCH',
      body: { paused: !job.paused },
    });
    job = updated;
    showPaused();
    notify(job.paused ? `Paused ${query}` : `Resumed ${query}: refreshed now, then every ${job.interval / 60} min.`);
  });
  showPaused();
  remove.addEventListener('click', async () => {
    await api(`/api/v1/db/products/${encodeURIComponent(job.id)}`, { method: 'DELETE' });
    item.remove();
    notify(`Stopped tracking ${query}`);
  });
  return item;
}

/** @param {Record<string, unknown>} params */
function stringParams(params) {
  return Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)]));
}
