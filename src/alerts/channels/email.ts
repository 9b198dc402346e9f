/**
 * E-mail over SMTP with nodemailer: one connection per delivery (alerts are rare; a pool would hold sockets to every
 * subscriber's server). The host is resolved and checked against the target guard here and the connection made to
 * the checked address (the TLS name stays the host's), so DNS re-pointed at a private address is refused like a
 * webhook's. TLS modes: `tls` (TLS from the first byte), `starttls` (the upgrade is required before the password is
 * sent: a server that does not offer it is refused), `none` (plain, for a relay on the LAN).
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import nodemailer from 'nodemailer';
import type { WebhookMessage } from '../events.js';
import { humanMessage } from '../chat-format.js';
import { isBlockedAddress } from '../address-guard.js';
import type { SendOptions, SendResult } from '../send.js';
import type { TargetPolicy } from '../target-guard.js';
import { smtpPort, type EmailChannel } from './types.js';

export interface EmailDefaults {
  timeoutMs: number;
  /** Extra trusted CA certificates (PEM), added to the public roots. */
  ca?: string;
}

class RefusedHost extends Error {}

/** The address to connect to: the host's first, once every address it has passed the guard. */
async function guardedAddress(host: string, policy: TargetPolicy): Promise<string> {
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare) !== 0) {
    if (!policy.allowPrivate && isBlockedAddress(bare)) throw new RefusedHost(`${bare} is a refused address`);
    return bare;
  }
  const all = await dnsLookup(bare, { all: true });
  const bad = policy.allowPrivate ? undefined : all.find((a) => isBlockedAddress(a.address));
  if (bad) throw new RefusedHost(`${bare} resolves to the refused address ${bad.address}`);
  if (all.length === 0) throw new Error(`${bare} has no address`);
  return all[0]!.address;
}

interface SmtpError {
  code?: string;
  responseCode?: number;
  message: string;
}

function asSmtpError(e: unknown): SmtpError {
  if (e instanceof Error) {
    const { code, responseCode } = e as Error & { code?: unknown; responseCode?: unknown };
    return {
      message: e.message,
      code: typeof code === 'string' ? code : undefined,
      responseCode: typeof responseCode === 'number' ? responseCode : undefined,
    };
  }
  return { message: String(e) };
}

export async function sendEmail(
  c: EmailChannel,
  message: WebhookMessage,
  policy: TargetPolicy,
  options: SendOptions & EmailDefaults,
): Promise<SendResult> {
  const started = performance.now();
  const timeout = options.timeoutMs;
  const fail = (error: string, retryable: boolean, status: number | null = null, timedOut = false): SendResult => ({
    ok: false,
    retryable,
    status,
    latencyMs: null,
    retryAfterSeconds: null,
    error,
    timedOut,
  });
  let address: string;
  try {
    address = await guardedAddress(c.host, policy);
  } catch (e) {
    if (e instanceof RefusedHost) return fail(`refused target: ${e.message}`, false);
    return fail(`smtp host ${c.host}: ${asSmtpError(e).message}`, true);
  }
  const transport = nodemailer.createTransport({
    host: address,
    port: smtpPort(c),
    secure: c.tls_mode === 'tls',
    requireTLS: c.tls_mode === 'starttls',
    ignoreTLS: c.tls_mode === 'none',
    auth: c.username && c.password ? { user: c.username, pass: c.password } : undefined,
    tls: {
      servername: isIP(c.host.replace(/^\[|\]$/g, '')) === 0 ? c.host : undefined,
      ...(options.ca ? { ca: [...rootCertificates, options.ca] } : {}),
    },
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
    logger: false,
    debug: false,
  });
  const m = humanMessage(message);
  try {
    const info = await transport.sendMail({
      from: c.from,
      to: c.to,
      subject: m.subject,
      text: `${m.lines.join('\n')}\n\n— marketlens (${message.type}, ${message.timestamp})\n`,
    });
    const code = Number(/^(\d{3})/.exec(String(info.response))?.[1] ?? 250);
    return {
      ok: true,
      retryable: false,
      status: code,
      latencyMs: Math.round(performance.now() - started),
      retryAfterSeconds: null,
      error: null,
    };
  } catch (e) {
    const err = asSmtpError(e);
    const status = err.responseCode ?? null;
    // Connection trouble and 4xx answers (greylisting, "try again later") pass; 5xx and a refused login do not.
    if (err.code === 'ETIMEDOUT') return fail(err.message, true, status, true);
    // A refused login or a server that cannot give the TLS asked for is a setting to fix, not a moment to wait out.
    if (err.code === 'EAUTH' || err.code === 'ETLS') return fail(err.message, false, status);
    if (status !== null) return fail(err.message, status < 500, status);
    return fail(err.message, true, status);
  } finally {
    transport.close();
  }
}
