// Status: each marketplace's health over the last hour (lookups, success rate, circuit breaker, last block and last
// format change), from /api/v1/status with the session. The full status page, with the canaries (the doctor's
// lookups run on a schedule), is /status, which the session opens too.
import { api } from './api.js';
import { h } from './dom.js';
import { dateTime, marketplaceLabel, percent } from './format.js';

export async function statusPage() {
  const status = await api('/api/v1/status');
  const view = status.total ?? {};
  const rows = Object.entries(view.marketplaces ?? {});
  return h(
    'div',
    {},
    h('h1', {}, 'Status'),
    h(
      'p',
      {},
      h('a', { href: '/status' }, 'Open the full status page (canaries and doctor results)'),
      ` · figures of ${status.instances?.length ?? 1} instance(s), ${dateTime(view.generated_at)}`,
    ),
    h(
      'div',
      { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': 'Marketplace status' },
      h(
        'table',
        {},
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ...['Marketplace', 'Lookups (1 h)', 'Answered', 'Breaker', 'Last blocked', 'Last format change'].map((c) =>
              h('th', { scope: 'col' }, c),
            ),
          ),
        ),
        h(
          'tbody',
          {},
          ...rows.map(([id, /** @type {any} */ m]) =>
            h(
              'tr',
              {},
              h('th', { scope: 'row' }, marketplaceLabel(id)),
              h('td', {}, m.windows?.['1h']?.lookups ?? 0),
              h(
                'td',
                {},
                m.windows?.['1h']?.success_rate === null
                  ? '—'
                  : percent((m.windows?.['1h']?.success_rate ?? 0) * 100).replace(/^\+/, ''),
              ),
              h('td', {}, m.breaker?.state ?? 'closed'),
              h('td', {}, m.last_blocked ? `${dateTime(m.last_blocked.at)} (${m.last_blocked.operation})` : '—'),
              h('td', {}, m.last_changed ? `${dateTime(m.last_changed.at)} (${m.last_changed.operation})` : '—'),
            ),
          ),
        ),
      ),
    ),
  );
}
