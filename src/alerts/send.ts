/**
 * One delivery attempt: POST the body with Standard Webhooks headers, 10 s timeout, redirects never followed, and
 * the target's addresses checked at connect time (target-guard.ts) so DNS re-pointed at a private address after the
 * subscription was created is still refused.
 */
import http from 'node:http';
import https from 'node:https';
import { BlockedTargetError, guardedLookup, parseTargetUrl, type TargetPolicy } from './target-guard.js';

export interface SendResult {
  /** 2xx */
  ok: boolean;
  /** Network errors, timeouts, 5xx, 408 and 429 are worth retrying; other answers and refused targets are not. */
  retryable: boolean;
  status: number | null;
  latencyMs: number | null;
  /** Seconds the receiver asked us to wait (Retry-After), when it did. */
  retryAfterSeconds: number | null;
  error: string | null;
  /** No answer within the timeout (the worker backs such a receiver off); absent = false. */
  timedOut?: boolean;
}

export interface SendOptions {
  /** This attempt's timeout (shortened for a receiver in a streak of timeouts); default the sender's own. */
  timeoutMs?: number;
}

export interface Sender {
  send(url: string, body: string, headers: Record<string, string>, options?: SendOptions): Promise<SendResult>;
  close(): void;
}

const MAX_ERROR_BODY = 200;

export function createSender(policy: TargetPolicy, timeoutMs = 10_000): Sender {
  const lookup = guardedLookup(policy) as never;
  const agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: 64, lookup }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: 64, lookup }),
  };
  return {
    close: () => {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
    send: (target, body, headers, options = {}) =>
      new Promise<SendResult>((resolve) => {
        const started = performance.now();
        const timeout = options.timeoutMs ?? timeoutMs;
        let timedOut = false;
        const fail = (error: string, retryable: boolean): void =>
          resolve({ ok: false, retryable, status: null, latencyMs: null, retryAfterSeconds: null, error, timedOut });
        let url: URL;
        try {
          url = parseTargetUrl(target, policy); // IP literals never reach `lookup`: check them here
        } catch (e) {
          return fail(`refused target: ${(e as Error).message}`, false);
        }
        const lib = url.protocol === 'https:' ? https : http;
        const req = lib.request(url, {
          method: 'POST',
          agent: agents[url.protocol as 'http:' | 'https:'],
          headers: {
            ...headers,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'user-agent': 'marketlens-webhooks/1',
          },
          timeout,
        });
        req.on('timeout', () => {
          timedOut = true;
          req.destroy(new Error(`no answer within ${timeout} ms`));
        });
        req.on('error', (e) => {
          if (e instanceof BlockedTargetError) return fail(`refused target: ${e.message}`, false);
          fail(e.message, true);
        });
        req.on('response', (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            if (text.length < MAX_ERROR_BODY) text += chunk;
          });
          res.on('error', () => undefined);
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            const latencyMs = Math.round(performance.now() - started);
            const ok = status >= 200 && status < 300;
            const retryable = status >= 500 || status === 429 || status === 408;
            const error = ok
              ? null
              : status >= 300 && status < 400
                ? `answered ${status} (redirects are not followed)`
                : `answered ${status}${text ? `: ${text.slice(0, MAX_ERROR_BODY)}` : ''}`;
            resolve({
              ok,
              retryable,
              status,
              latencyMs,
              retryAfterSeconds: retryAfter(res.headers['retry-after']),
              error,
            });
          });
        });
        req.end(body);
      }),
  };
}

/** `Retry-After: 120` or an HTTP date → seconds; null when absent or unreadable. */
export function retryAfter(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.round((at - now) / 1000));
}
