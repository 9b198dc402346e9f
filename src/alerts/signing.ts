/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): `webhook-signature: v1,<base64 HMAC-SHA256 of
 * "id.timestamp.body">` keyed with the bytes of a `whsec_<base64>` secret, so receivers verify with the
 * `standardwebhooks` package (or any of its ports) instead of our own scheme.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/** A new subscription secret: 32 random bytes. */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** A message id, kept across retries so receivers can de-duplicate. */
export function generateMessageId(): string {
  return `msg_${randomUUID().replaceAll('-', '')}`;
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * @example signatureHeaders('whsec_…', 'msg_1', 1700000000, '{"type":"price.changed"}')
 */
export function signatureHeaders(secret: string, id: string, timestampSeconds: number, body: string): SignedHeaders {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestampSeconds), 'webhook-signature': `v1,${signature}` };
}
