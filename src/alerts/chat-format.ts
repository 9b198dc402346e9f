/**
 * Discord and Slack incoming webhooks reject arbitrary JSON: they need their own message shape. When a target is one
 * of them, the message becomes one short line (product, size, old → new, link); the signature headers are still
 * sent (over that body) so the delivery is the same everywhere else.
 */
import type { WebhookMessage } from './events.js';

export type ChatTarget = 'discord' | 'slack';

export function chatTarget(url: URL): ChatTarget | undefined {
  const host = url.hostname.toLowerCase();
  if (/^(?:[a-z]+\.)?discord(?:app)?\.com$/.test(host) && url.pathname.startsWith('/api/webhooks/')) return 'discord';
  if (host === 'hooks.slack.com' && url.pathname.startsWith('/services/')) return 'slack';
  return undefined;
}

/** The one line a person reads in a chat channel. */
export function summaryLine(message: WebhookMessage): string {
  const d = message.data;
  const product = d.name ?? d.sku ?? d.product_id ?? d.listing_id ?? d.operation ?? '';
  const size = d.size ? ` size ${d.size}` : '';
  const money = (v: unknown) => (typeof v === 'number' ? `${v} ${d.currency ?? ''}`.trim() : 'none');
  let what: string;
  switch (message.type) {
    case 'price.changed':
      what = `${money(d.old)} → ${money(d.new)} (${Number(d.change_pct) > 0 ? '+' : ''}${d.change_pct} %)`;
      break;
    case 'price.below':
    case 'price.above':
      what = `${money(d.old)} → ${money(d.new)} (${message.type === 'price.below' ? 'below' : 'above'} ${d.threshold})`;
      break;
    case 'stock.changed':
      what = d.in_stock
        ? typeof d.price === 'number'
          ? `back in stock at ${money(d.price)}`
          : 'back in stock'
        : 'sold out';
      break;
    case 'listing.new':
      what = `new listing ${d.listing_id} in ${d.search}`;
      break;
    case 'listing.removed':
      what = `listing ${d.listing_id} gone from ${d.search}`;
      break;
    case 'product.not_found':
      what = 'product not found';
      break;
    case 'marketplace.changed':
      what = `${d.marketplace} changed its format: ${d.message}`;
      break;
    default:
      what = 'test message from marketlens';
  }
  const link = typeof d.url === 'string' ? ` ${d.url}` : '';
  return `[${message.type}] ${product}${size}: ${what}${link}`.replace(/\s+/g, ' ').trim();
}

/** The body to send to `url` for `payload` (the stored Standard Webhooks JSON). */
export function bodyFor(url: URL, payload: string): string {
  const target = chatTarget(url);
  if (!target) return payload;
  const line = summaryLine(JSON.parse(payload) as WebhookMessage);
  return JSON.stringify(target === 'discord' ? { content: line.slice(0, 2000) } : { text: line });
}
