/**
 * The notification channels a subscription may send to besides a signed webhook: Telegram, ntfy and e-mail over
 * SMTP. The structured form below is what the API accepts (`channel: {type: …}`), what the database stores (as JSON
 * in alert_subscriptions.channel, secrets included, like the webhook signing secret) and what apprise.ts turns an
 * Apprise-style URL into. Discord and Slack stay plain webhook URLs (chat-format.ts shapes their body).
 */
import { z } from 'zod';

const secret = (what: string) => z.string().min(1).max(500).describe(`${what}; stored, never shown again`);

export const NTFY_PRIORITIES = [1, 2, 3, 4, 5] as const;

export const telegramChannelSchema = z
  .object({
    type: z.literal('telegram'),
    bot_token: secret('Bot API token from @BotFather (123456:ABC…)').regex(
      /^\d+:[A-Za-z0-9_-]+$/,
      'expected a bot token like 123456:ABC-def',
    ),
    chat_id: z
      .string()
      .regex(/^(?:-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$/, 'expected a numeric chat id or @channelname')
      .describe('Chat id (numeric, negative for groups) or @channelname'),
  })
  .strict()
  .meta({ id: 'TelegramChannel' });

export const ntfyChannelSchema = z
  .object({
    type: z.literal('ntfy'),
    server: z
      .string()
      .max(2048)
      .nullable()
      .default(null)
      .describe('Base URL of the ntfy server (https://ntfy.example.com); null = the operator default (ntfy.sh)'),
    topic: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, 'expected 1-64 letters, digits, _ or -')
      .describe('Topic to publish to'),
    token: secret('Access token (tk_…)').nullable().default(null),
    username: z.string().min(1).max(200).nullable().default(null).describe('Basic auth user (with password)'),
    password: secret('Basic auth password').nullable().default(null),
    priority: z
      .number()
      .int()
      .min(1)
      .max(5)
      .nullable()
      .default(null)
      .describe('1 (min) … 5 (max) for every event; null = by event (price drops and restocks high)'),
    tags: z
      .array(z.string().regex(/^[A-Za-z0-9_+-]{1,40}$/))
      .max(10)
      .default([])
      .describe('Tags (emoji short codes) added to the ones chosen by event'),
  })
  .strict()
  .meta({ id: 'NtfyChannel' });

export const TLS_MODES = ['tls', 'starttls', 'none'] as const;
export type TlsMode = (typeof TLS_MODES)[number];

const address = z
  .string()
  .min(3)
  .max(320)
  .regex(/^[^\s@<>,]+@[^\s@<>,]+$/, 'expected an e-mail address');

export const emailChannelSchema = z
  .object({
    type: z.literal('email'),
    host: z
      .string()
      .min(1)
      .max(253)
      .regex(/^[A-Za-z0-9.:[\]-]+$/, 'expected a host name or address')
      .describe('SMTP server'),
    port: z.number().int().min(1).max(65535).nullable().default(null).describe('null = 465 for tls, else 587'),
    tls_mode: z
      .enum(TLS_MODES)
      .default('starttls')
      .describe('tls: TLS from the start (465); starttls: upgrade required before login; none: plain (LAN relays)'),
    username: z.string().min(1).max(320).nullable().default(null),
    password: secret('SMTP password').nullable().default(null),
    from: address.describe('Sender address'),
    to: z.array(address).min(1).max(20).describe('Recipients'),
  })
  .strict()
  .meta({ id: 'EmailChannel' });

export const channelObjectSchema = z
  .discriminatedUnion('type', [telegramChannelSchema, ntfyChannelSchema, emailChannelSchema])
  .meta({ id: 'Channel' });

export type TelegramChannel = z.output<typeof telegramChannelSchema>;
export type NtfyChannel = z.output<typeof ntfyChannelSchema>;
export type EmailChannel = z.output<typeof emailChannelSchema>;
export type Channel = z.output<typeof channelObjectSchema>;

/** Where the operator's defaults point (MARKETLENS_TELEGRAM_API_URL, MARKETLENS_NTFY_URL; tests use local fakes). */
export interface ChannelEndpoints {
  telegramApiUrl: string;
  ntfyUrl: string;
  /** PEM of CAs trusted for SMTP TLS besides the public roots (MARKETLENS_SMTP_CA_FILE: a LAN mail server's CA). */
  smtpCa?: string;
}

export const DEFAULT_ENDPOINTS: ChannelEndpoints = {
  telegramApiUrl: 'https://api.telegram.org',
  ntfyUrl: 'https://ntfy.sh',
};

/** The SMTP port used when none is given. */
export function smtpPort(c: EmailChannel): number {
  return c.port ?? (c.tls_mode === 'tls' ? 465 : 587);
}
