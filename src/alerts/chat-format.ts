/**
 * What a person reads: Discord and Slack incoming webhooks reject arbitrary JSON, and Telegram, ntfy and e-mail are
 * read on a phone. One formatter per event type (`humanMessage`) serves them all: a title (the e-mail subject, the
 * ntfy title, the chat line), the body lines (product and size, marketplace, old → new with currency and change %,
 * link) and the link. Event types it does not know (added by other features) still read as a sentence built from
 * their fields, never as raw JSON. For Discord and Slack the signature headers are still sent (over their body).
 */
import { MARKETPLACE_INFO } from '../marketplaces/catalog.js';
import type { WebhookMessage } from './events.js';

export type ChatTarget = 'discord' | 'slack';

export function chatTarget(url: URL): ChatTarget | undefined {
  const host = url.hostname.toLowerCase();
  if (/^(?:[a-z]+\.)?discord(?:app)?\.com$/.test(host) && url.pathname.startsWith('/api/webhooks/')) return 'discord';
  if (host === 'hooks.slack.com' && url.pathname.startsWith('/services/')) return 'slack';
  return undefined;
}

export interface HumanMessage {
  /** `Air Jordan 1 Chicago size 10: 300 USD → 270 USD (-10 %)` */
  title: string;
  /** Lines: product (SKU) and size, marketplace and what happened, the link. */
  lines: string[];
  link: string | null;
  /** The e-mail subject. */
  subject: string;
}

type Data = Readonly<Record<string, unknown>>;

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function money(d: Data, v: unknown): string {
  const n = num(v);
  return n === null ? 'none' : `${n} ${str(d.currency) ?? ''}`.trim();
}

function pct(v: unknown): string | null {
  const n = num(v);
  return n === null ? null : `${n > 0 ? '+' : ''}${n} %`;
}

/** A product event's offer (`buy`/`sell`), as a person reads it: `270 USD on GOAT (lowest price)`. */
function offer(v: unknown): string | null {
  if (typeof v !== 'object' || v === null) return null;
  const o = v as Data;
  const amount = num(o.amount);
  if (amount === null) return null;
  const id = str(o.marketplace);
  const site =
    id && Object.hasOwn(MARKETPLACE_INFO, id) ? MARKETPLACE_INFO[id as keyof typeof MARKETPLACE_INFO].site : id;
  const kind = str(o.kind)?.replaceAll('_', ' ');
  return `${amount} ${str(o.currency) ?? ''} on ${site ?? 'a marketplace'}${kind ? ` (${kind})` : ''}`.replace(
    / +/g,
    ' ',
  );
}

/** What happened, per event type; null for a type this formatter does not know. */
function whatHappened(type: string, d: Data): string | null {
  switch (type) {
    case 'price.changed': {
      const change = pct(d.change_pct);
      return `${money(d, d.old)} → ${money(d, d.new)}${change ? ` (${change})` : ''}`;
    }
    case 'price.below':
    case 'price.above':
      return `${money(d, d.old)} → ${money(d, d.new)} (${type === 'price.below' ? 'below' : 'above'} ${d.threshold})`;
    case 'stock.changed':
      return d.in_stock
        ? num(d.price) === null
          ? 'back in stock'
          : `back in stock at ${money(d, d.price)}`
        : 'sold out';
    case 'listing.new':
      return `new listing ${d.listing_id} in ${d.search}`;
    case 'listing.removed':
      return `listing ${d.listing_id} gone from ${d.search}`;
    case 'product.not_found':
      return 'product not found';
    case 'marketplace.changed':
      return `${d.marketplace} changed its format: ${d.message}`;
    case 'spread.above': {
      const spread = num(d.spread_pct) === null ? money(d, d.spread) : `${money(d, d.spread)} (${d.spread_pct} %)`;
      return `spread ${spread}: buy ${offer(d.buy) ?? 'none'}, sell ${offer(d.sell) ?? 'none'}`;
    }
    case 'price.new_low':
      return `new ${d.days}-day low: ${offer(d.buy) ?? 'none'} (was ${money(d, d.previous_low)})`;
    case 'webhook.test':
      return 'test message from marketlens';
    default:
      return null;
  }
}

/** Fields the generic sentence leaves out: shown elsewhere in the message, or of no use to a reader. */
const SHOWN = new Set([
  'name',
  'sku',
  'size',
  'url',
  'currency',
  'marketplace',
  'operation',
  'kind',
  'country',
  'condition',
]);

/** A readable sentence from an unknown event's scalar fields (`old 300 USD, new 270 USD, spread 12 %`). */
function generic(d: Data): string {
  const parts: string[] = [];
  if (num(d.old) !== null || num(d.new) !== null) parts.push(`${money(d, d.old)} → ${money(d, d.new)}`);
  if (num(d.change_pct) !== null) parts.push(`(${pct(d.change_pct)})`);
  for (const [k, v] of Object.entries(d)) {
    if (SHOWN.has(k) || /_(?:at|id)$/.test(k) || k === 'old' || k === 'new' || k === 'change_pct') continue;
    if (typeof v === 'number')
      parts.push(`${k.replaceAll('_', ' ')} ${/price|amount|ask|bid|low|high/.test(k) ? money(d, v) : v}`);
    else if (typeof v === 'string' && v.length <= 80) parts.push(`${k.replaceAll('_', ' ')} ${v}`);
    else if (typeof v === 'boolean') parts.push(`${k.replaceAll('_', ' ')} ${v ? 'yes' : 'no'}`);
    if (parts.length >= 8) break;
  }
  return parts.join(', ') || 'an update';
}

/** The message a person reads for `message`, whatever its type. */
export function humanMessage(message: WebhookMessage): HumanMessage {
  const d: Data = message.data;
  const product = str(d.name) ?? str(d.sku) ?? str(d.product_id) ?? str(d.listing_id) ?? str(d.operation) ?? '';
  const size = str(d.size) ?? (num(d.size) === null ? null : String(d.size));
  const what = whatHappened(message.type, d) ?? generic(d);
  const buyUrl = typeof d.buy === 'object' && d.buy !== null ? str((d.buy as Data).url) : null;
  const link = str(d.url) ?? buyUrl;
  const title = `${product}${size ? ` size ${size}` : ''}: ${what}`.replace(/\s+/g, ' ').replace(/^: /, '').trim();
  const sku = str(d.sku) && str(d.name) ? ` (${d.sku})` : '';
  const lines = [
    `${product}${sku}${size ? ` — size ${size}` : ''}`.trim(),
    `${str(d.marketplace) ? `${d.marketplace}: ` : ''}${what}`,
    ...(link ? [link] : []),
  ].filter((l) => l !== '');
  const subject = `[marketlens] ${message.type}: ${title}`.slice(0, 200);
  return { title, lines, link, subject };
}

/** The one line a person reads in a chat channel. */
export function summaryLine(message: WebhookMessage): string {
  const { title, link } = humanMessage(message);
  return `[${message.type}] ${title}${link ? ` ${link}` : ''}`.replace(/\s+/g, ' ').trim();
}

/** The body to send to `url` for `payload` (the stored Standard Webhooks JSON). */
export function bodyFor(url: URL, payload: string): string {
  const target = chatTarget(url);
  if (!target) return payload;
  const line = summaryLine(JSON.parse(payload) as WebhookMessage);
  return JSON.stringify(target === 'discord' ? { content: line.slice(0, 2000) } : { text: line });
}
