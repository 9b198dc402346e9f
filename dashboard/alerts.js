// Alerts: the key's webhook subscriptions and each one's recent deliveries (status, response code, attempts);
// send a test event, pause or resume, delete.
import { api } from './api.js';
import { h, notify } from './dom.js';
import { dateTime } from './format.js';

export async function alertsPage() {
  const subscriptions = await api('/api/v1/webhooks');
  const list = Array.isArray(subscriptions) ? subscriptions : (subscriptions.data ?? subscriptions.docs ?? []);
  const page = h('div', {}, h('h1', {}, 'Alerts'));
  if (list.length === 0) page.append(h('p', { class: 'muted' }, 'No alerts yet: create one from a product page.'));
  for (const sub of list) page.append(await subscriptionCard(sub));
  return page;
}

/** @param {any} sub */
async function subscriptionCard(sub) {
  const deliveries = h('div', {
    class: 'table-wrap',
    tabindex: 0,
    role: 'region',
    'aria-label': `Deliveries to ${sub.url}`,
  });
  const refresh = async () => {
    const body = await api(`/api/v1/webhooks/${encodeURIComponent(sub.id)}/deliveries`);
    const rows = Array.isArray(body) ? body : (body.data ?? body.docs ?? []);
    deliveries.replaceChildren(
      rows.length === 0
        ? h('p', { class: 'muted' }, 'No deliveries yet.')
        : h(
            'table',
            { class: 'deliveries' },
            h('caption', { class: 'visually-hidden' }, 'Recent deliveries'),
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ...['Event', 'Status', 'Response', 'Attempts', 'When'].map((c) => h('th', { scope: 'col' }, c)),
              ),
            ),
            h(
              'tbody',
              {},
              ...rows.map((/** @type {any} */ d) =>
                h(
                  'tr',
                  { 'data-status': d.status },
                  h('td', {}, d.event_type),
                  h('td', {}, d.status),
                  h('td', {}, d.response_code ?? '—'),
                  h('td', {}, d.attempts),
                  h('td', {}, dateTime(d.last_attempt_at ?? d.created_at)),
                ),
              ),
            ),
          ),
    );
  };
  const test = h('button', { type: 'button' }, 'Send a test');
  test.addEventListener('click', async () => {
    await api(`/api/v1/webhooks/${encodeURIComponent(sub.id)}/test`, { method: 'POST' });
    notify('Test event queued');
    await refresh();
  });
  const reload = h('button', { type: 'button', class: 'quiet' }, 'Refresh');
  reload.addEventListener('click', () => void refresh());
  const pause = h('button', { type: 'button', class: 'quiet' }, sub.enabled ? 'Pause' : 'Resume');
  pause.addEventListener('click', async () => {
    const updated = await api(`/api/v1/webhooks/${encodeURIComponent(sub.id)}`, {
      method: 'PATCH',
      body: { enabled: !sub.enabled },
    });
    sub.enabled = updated.enabled;
    pause.textContent = sub.enabled ? 'Pause' : 'Resume';
    notify(sub.enabled ? 'Alert resumed' : 'Alert paused');
  });
  const remove = h('button', { type: 'button', class: 'quiet' }, 'Delete');
  const card = h(
    'section',
    { class: 'card subscription', 'aria-label': `Alert to ${sub.url}` },
    h('h2', {}, sub.description ?? sub.url),
    h(
      'p',
      { class: 'muted' },
      `${sub.events.join(', ')} → ${sub.url}${sub.enabled ? '' : ' (paused)'}${sub.disabled_reason ? ` — ${sub.disabled_reason}` : ''}`,
    ),
    h('div', { class: 'buttons' }, test, reload, pause, remove),
    deliveries,
  );
  remove.addEventListener('click', async () => {
    await api(`/api/v1/webhooks/${encodeURIComponent(sub.id)}`, { method: 'DELETE' });
    card.remove();
    notify('Alert deleted');
  });
  await refresh();
  return card;
}
