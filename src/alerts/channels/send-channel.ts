/**
 * One delivery to a channel: the stored Standard Webhooks message in, one attempt out, as a SendResult the worker
 * records and retries exactly like a webhook's (same queue, order, back-off, durability and per-key shares).
 * Telegram and ntfy go through the webhook HTTP sender (its target guard, timeout and redirect refusal); e-mail
 * through nodemailer with the same guard (email.ts).
 */
import type { WebhookMessage } from '../events.js';
import type { Sender, SendOptions, SendResult } from '../send.js';
import type { TargetPolicy } from '../target-guard.js';
import { sendEmail } from './email.js';
import { sendNtfy } from './ntfy.js';
import { sendTelegram } from './telegram.js';
import type { Channel, ChannelEndpoints } from './types.js';

export interface ChannelSender {
  send(channel: Channel, payload: string, options?: SendOptions): Promise<SendResult>;
}

export function createChannelSender(
  http: Sender,
  policy: TargetPolicy,
  endpoints: ChannelEndpoints,
  timeoutMs: number,
): ChannelSender {
  return {
    send: (channel, payload, options = {}) => {
      const message = JSON.parse(payload) as WebhookMessage;
      switch (channel.type) {
        case 'telegram':
          return sendTelegram(http, endpoints.telegramApiUrl, channel, message, options);
        case 'ntfy':
          return sendNtfy(http, endpoints.ntfyUrl, channel, message, options);
        case 'email':
          return sendEmail(channel, message, policy, {
            timeoutMs: options.timeoutMs ?? timeoutMs,
            ca: endpoints.smtpCa,
          });
      }
    },
  };
}
