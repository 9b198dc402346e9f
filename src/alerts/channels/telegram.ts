/**
 * Telegram: the Bot API's sendMessage, POSTed as JSON through the webhook sender (same target guard, timeout, no
 * redirects, retry rules). Plain text (no parse_mode, so product names need no escaping). The token is in the
 * request path, which no error or log line repeats.
 */
import type { WebhookMessage } from '../events.js';
import { humanMessage } from '../chat-format.js';
import type { Sender, SendOptions, SendResult } from '../send.js';
import type { TelegramChannel } from './types.js';

/** Telegram's limit for one message. */
const MAX_TEXT = 4096;

export function telegramText(message: WebhookMessage): string {
  const m = humanMessage(message);
  return m.lines.join('\n').slice(0, MAX_TEXT);
}

export async function sendTelegram(
  http: Sender,
  apiUrl: string,
  c: TelegramChannel,
  message: WebhookMessage,
  options: SendOptions,
): Promise<SendResult> {
  const url = `${apiUrl.replace(/\/+$/, '')}/bot${c.bot_token}/sendMessage`;
  const body = JSON.stringify({ chat_id: c.chat_id, text: telegramText(message) });
  const result = await http.send(url, body, {}, options);
  // A 429 says how long to wait in its JSON body ({"parameters":{"retry_after":N}}), not in a header.
  const retryAfter = /"retry_after"\s*:\s*(\d+)/.exec(result.error ?? '')?.[1];
  return retryAfter && result.retryAfterSeconds === null
    ? { ...result, retryAfterSeconds: Number(retryAfter) }
    : result;
}
