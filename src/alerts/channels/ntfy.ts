/**
 * ntfy: one JSON publish (POST to the server's root with topic, title, message, priority, tags and the product link
 * as the click action) through the webhook sender (same target guard, timeout, no redirects, retry rules). Priority
 * and tags follow the event: a price drop or a restock buzzes (high), a failure stays quiet (low).
 */
import type { WebhookMessage } from '../events.js';
import { humanMessage } from '../chat-format.js';
import type { Sender, SendOptions, SendResult } from '../send.js';
import type { NtfyChannel } from './types.js';

interface Style {
  priority: number;
  tags: string[];
}

/** Priority (1-5) and tags (emoji short codes) for an event. */
export function ntfyStyle(message: WebhookMessage): Style {
  const d = message.data;
  const change = typeof d.change_pct === 'number' ? d.change_pct : 0;
  switch (message.type) {
    case 'price.changed':
      return change < 0
        ? { priority: 4, tags: ['chart_with_downwards_trend'] }
        : { priority: 3, tags: ['chart_with_upwards_trend'] };
    case 'price.below':
      return { priority: 4, tags: ['moneybag'] };
    case 'price.above':
      return { priority: 3, tags: ['chart_with_upwards_trend'] };
    case 'stock.changed':
      return d.in_stock ? { priority: 4, tags: ['package'] } : { priority: 3, tags: ['x'] };
    case 'listing.new':
    case 'listing.removed':
      return { priority: 3, tags: ['mag'] };
    case 'product.not_found':
    case 'marketplace.changed':
      return { priority: 2, tags: ['warning'] };
    default:
      return { priority: 3, tags: ['bell'] };
  }
}

export function ntfyBody(c: NtfyChannel, message: WebhookMessage): string {
  const m = humanMessage(message);
  const style = ntfyStyle(message);
  return JSON.stringify({
    topic: c.topic,
    title: m.title.slice(0, 250),
    message: m.lines.join('\n'),
    priority: c.priority ?? style.priority,
    tags: [...style.tags, ...c.tags],
    ...(m.link ? { click: m.link } : {}),
  });
}

export async function sendNtfy(
  http: Sender,
  defaultServer: string,
  c: NtfyChannel,
  message: WebhookMessage,
  options: SendOptions,
): Promise<SendResult> {
  const server = (c.server ?? defaultServer).replace(/\/+$/, '');
  const headers: Record<string, string> = {};
  if (c.token) headers.authorization = `Bearer ${c.token}`;
  else if (c.username && c.password)
    headers.authorization = `Basic ${Buffer.from(`${c.username}:${c.password}`).toString('base64')}`;
  return http.send(`${server}/`, ntfyBody(c, message), headers, options);
}
