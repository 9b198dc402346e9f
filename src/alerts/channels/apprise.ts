/**
 * Apprise-style channel URLs (the notation self-hosters already write in Apprise, Home Assistant, Uptime Kuma …):
 *   tgram://{bot_token}/{chat_id}
 *   ntfy://{topic}   ntfy[s]://[{user}:{password}@ | {token}@]{host}[:{port}]/{topic}[?priority=high&tags=a,b&token=tk_…]
 *   mailto[s]://[{user}:{password}@]{host}[:{port}][?to=a@x,b@y&from=me@x&smtp=relay&mode=ssl|starttls|none]
 * parsed into the structured form (types.ts) and checked with the same schema; anything else is a 400 naming the
 * field it came in. `displayTarget` is the reverse without the secrets: what list/get show.
 */
import type { z } from 'zod';
import { invalidParam } from '../../errors.js';
import {
  channelObjectSchema,
  smtpPort,
  type Channel,
  type EmailChannel,
  type NtfyChannel,
  type TlsMode,
} from './types.js';

const SCHEMES = ['tgram', 'ntfy', 'ntfys', 'mailto', 'mailtos'] as const;
const MAX_LENGTH = 2048;

/** True when `input` starts with one of the channel schemes (otherwise it is a webhook URL). */
export function isChannelUrl(input: string): boolean {
  const scheme = /^([a-z]+):\/\//i.exec(input.trim())?.[1]?.toLowerCase();
  return (SCHEMES as readonly string[]).includes(scheme ?? '');
}

/** Parses an Apprise-style URL into a checked channel; 400 naming `param` when it is not one. */
export function parseChannelUrl(input: string, param = 'channel'): Channel {
  const text = input.trim();
  if (text.length > MAX_LENGTH) throw invalidParam(param, `is too long (at most ${MAX_LENGTH} characters)`);
  const scheme = /^([a-z]+):\/\//i.exec(text)?.[1]?.toLowerCase();
  let raw: Record<string, unknown>;
  switch (scheme) {
    case 'tgram':
      raw = telegram(text, param);
      break;
    case 'ntfy':
    case 'ntfys':
      raw = ntfy(parseUrl(text, param), scheme === 'ntfys', param);
      break;
    case 'mailto':
    case 'mailtos':
      raw = email(parseUrl(text, param), scheme === 'mailtos', param);
      break;
    default:
      throw invalidParam(param, `must be a tgram://, ntfy://, ntfys://, mailto:// or mailtos:// URL`);
  }
  return checkChannel(raw, param);
}

/** Checks a structured channel object (or one built from a URL); 400 naming `param.<field>` on the first problem. */
export function checkChannel(raw: unknown, param = 'channel'): Channel {
  const parsed = channelObjectSchema.safeParse(raw);
  if (!parsed.success) throw invalidParam(fieldOf(parsed.error, param), firstMessage(parsed.error));
  const c = parsed.data;
  if (c.type === 'ntfy') {
    if (c.token && (c.username || c.password)) throw invalidParam(`${param}.token`, 'use a token or a user, not both');
    if (!!c.username !== !!c.password) throw invalidParam(`${param}.password`, 'a user needs a password, and back');
  }
  if (c.type === 'email' && !!c.username !== !!c.password) {
    throw invalidParam(`${param}.password`, 'a user needs a password, and back');
  }
  return c;
}

function fieldOf(error: z.ZodError, param: string): string {
  const path = error.issues[0]?.path ?? [];
  return [param, ...path.filter((p) => typeof p !== 'number').map(String)].join('.');
}

function firstMessage(error: z.ZodError): string {
  return error.issues[0]?.message ?? 'is not a valid channel';
}

function parseUrl(text: string, param: string): URL {
  try {
    return new URL(text);
  } catch {
    throw invalidParam(param, 'is not a valid URL');
  }
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

function telegram(text: string, param: string): Record<string, unknown> {
  // Not through URL: the token's colon would read as a port.
  const m = /^tgram:\/\/(?:bot)?([^/?#]+)\/([^?#]*)(?:\?[^#]*)?$/i.exec(text);
  if (!m) throw invalidParam(param, 'expected tgram://{bot_token}/{chat_id}');
  const chats = m[2]!.split('/').filter(Boolean);
  if (chats.length !== 1) throw invalidParam(param, 'expected exactly one chat id: tgram://{bot_token}/{chat_id}');
  return { type: 'telegram', bot_token: decode(m[1]!), chat_id: decode(chats[0]!) };
}

function ntfy(url: URL, secure: boolean, param: string): Record<string, unknown> {
  const segments = url.pathname.split('/').filter(Boolean).map(decode);
  const q = url.searchParams;
  const user = decode(url.username);
  const password = decode(url.password);
  let token = q.get('token');
  let username: string | null = null;
  if (user && !password) {
    if (!/^tk_/i.test(user)) throw invalidParam(param, 'a user needs a password (or give a tk_ token)');
    token = user;
  } else if (!user && password)
    token = password; // ntfy://:tk_…@host/topic
  else if (user) username = user;
  let server: string | null;
  let topic: string | undefined;
  if (segments.length === 0) {
    // ntfy://topic: the operator's default server
    server = null;
    topic = decode(url.hostname);
  } else {
    if (segments.length > 1) throw invalidParam(param, 'expected one topic: ntfy://host/topic');
    // ntfy.sh itself only speaks https (Apprise's "cloud" mode).
    const https = secure || /(^|\.)ntfy\.sh$/i.test(url.hostname);
    server = `${https ? 'https' : 'http'}://${url.host}`;
    topic = segments[0];
  }
  const tags = q.get('tags') ?? q.get('tag');
  return {
    type: 'ntfy',
    server,
    topic,
    token,
    username,
    password: username ? password : null,
    priority: priorityOf(q.get('priority') ?? q.get('prio'), param),
    tags: tags ? tags.split(/[,\s]+/).filter(Boolean) : [],
  };
}

const PRIORITY_NAMES: Record<string, number> = { min: 1, low: 2, default: 3, normal: 3, high: 4, max: 5, urgent: 5 };

function priorityOf(value: string | null, param: string): number | null {
  if (value === null || value === '') return null;
  const n = /^[1-5]$/.test(value) ? Number(value) : PRIORITY_NAMES[value.toLowerCase()];
  if (n === undefined) throw invalidParam(`${param}.priority`, 'expected 1-5 or min, low, default, high, max');
  return n;
}

const MODES: Record<string, TlsMode> = { ssl: 'tls', tls: 'tls', starttls: 'starttls', none: 'none', insecure: 'none' };

function email(url: URL, secure: boolean, param: string): Record<string, unknown> {
  const q = url.searchParams;
  const username = decode(url.username) || q.get('user');
  const password = decode(url.password) || q.get('pass');
  const domain = url.hostname;
  if (!domain) throw invalidParam(param, 'expected mailto://user:password@host');
  const mode = q.get('mode');
  let tlsMode: TlsMode = secure ? 'starttls' : 'none';
  if (mode !== null) {
    const m = MODES[mode.toLowerCase()];
    if (!m) throw invalidParam(`${param}.tls_mode`, 'mode must be ssl, starttls or none');
    tlsMode = m;
  }
  // Apprise: the URL's host is the mail domain; ?smtp= names the server when it is another host.
  const host = q.get('smtp') ?? domain;
  const from = q.get('from') ?? (username?.includes('@') ? username : username ? `${username}@${domain}` : null);
  const to =
    q
      .get('to')
      ?.split(/[,\s]+/)
      .filter(Boolean) ?? (from ? [from] : []);
  if (!from) throw invalidParam(`${param}.from`, 'give ?from=address (or a user to send as)');
  return {
    type: 'email',
    host,
    port: url.port ? Number(url.port) : null,
    tls_mode: tlsMode,
    username: username || null,
    password: password || null,
    from,
    to,
  };
}

/** The channel as an Apprise-style URL with every secret replaced by `…`: safe to show and to log. */
export function displayTarget(c: Channel): string {
  switch (c.type) {
    case 'telegram':
      return `tgram://…/${c.chat_id}`;
    case 'ntfy':
      return ntfyTarget(c);
    case 'email':
      return emailTarget(c);
  }
}

function ntfyTarget(c: NtfyChannel): string {
  if (c.server === null && !c.token && !c.username) return `ntfy://${c.topic}`;
  const server = new URL(c.server ?? 'https://default-server');
  const scheme = server.protocol === 'https:' ? 'ntfys' : 'ntfy';
  const auth = c.token ? '…@' : c.username ? `${encodeURIComponent(c.username)}:…@` : '';
  const path = server.pathname.replace(/\/+$/, '');
  return `${scheme}://${auth}${server.host}${path}/${c.topic}`;
}

function emailTarget(c: EmailChannel): string {
  const scheme = c.tls_mode === 'none' ? 'mailto' : 'mailtos';
  const auth = c.username ? `${encodeURIComponent(c.username)}:…@` : '';
  const mode = c.tls_mode === 'tls' ? 'ssl' : c.tls_mode;
  const host = c.host.includes(':') && !c.host.startsWith('[') ? `[${c.host}]` : c.host;
  return `${scheme}://${auth}${host}:${smtpPort(c)}/?to=${c.to.join(',')}&from=${c.from}&mode=${mode}`;
}

/** The channel without its secrets (list/get show this, never the token or password). */
export function redactChannel(c: Channel): { type: Channel['type'] } & Record<string, unknown> {
  switch (c.type) {
    case 'telegram':
      return { type: c.type, chat_id: c.chat_id };
    case 'ntfy': {
      const { token, password, ...rest } = c;
      return { ...rest, has_token: token !== null, has_password: password !== null };
    }
    case 'email': {
      const { password, ...rest } = c;
      return { ...rest, has_password: password !== null };
    }
  }
}
