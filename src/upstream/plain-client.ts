/**
 * The simplest HttpClient: Node's fetch, with the SSRF guard on every hop, origin overrides, the lookup deadline,
 * a body cap, and the basic mapping of failures to error codes. No retries, sessions or tiers: the hardened client
 * builds on the same seams.
 */
import type { Config } from '../config.js';
import { MarketlensError, isMarketlensError } from '../errors.js';
import type { HttpClient, RequestContext, UpstreamRequest, UpstreamResponse } from './http-client.js';
import { toRealUrl, toWireUrl } from './origin.js';
import { assertFetchable } from './url-guard.js';
import type { UpstreamObserver } from './observer.js';

const MAX_REDIRECTS = 5;

export class PlainHttpClient implements HttpClient {
  constructor(
    private readonly config: Config,
    private readonly observer?: UpstreamObserver,
  ) {}

  async request(req: UpstreamRequest, ctx: RequestContext): Promise<UpstreamResponse> {
    const started = performance.now();
    try {
      const res = await this.follow(req, ctx);
      this.observer?.onUpstream({ marketplace: ctx.marketplace, tier: 'direct', outcome: `http_${res.status}`, seconds: (performance.now() - started) / 1000 });
      return res;
    } catch (e) {
      const err = toUpstreamError(e, ctx);
      this.observer?.onUpstream({ marketplace: ctx.marketplace, tier: 'direct', outcome: err.code, seconds: (performance.now() - started) / 1000 });
      throw err;
    }
  }

  private async follow(req: UpstreamRequest, ctx: RequestContext): Promise<UpstreamResponse> {
    const override = this.config.marketplaces[ctx.marketplace].origin;
    let real = new URL(req.url);
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      assertFetchable(ctx.marketplace, real, hop === 0 ? 'request' : 'redirect');
      const wire = toWireUrl(real, override);
      const res = await fetch(wire, {
        method: req.method ?? 'GET',
        headers: req.headers,
        body: req.body,
        redirect: 'manual',
        signal: ctx.signal,
      });
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        await res.body?.cancel();
        real = toRealUrl(location, real, wire, override);
        continue;
      }
      const body = await readCapped(res, this.config.maxBodyBytes, ctx.signal);
      const headers = Object.fromEntries(res.headers);
      if (res.status >= 500) {
        throw new MarketlensError('upstream_error', `${ctx.marketplace} answered HTTP ${res.status}`, {
          upstreamStatus: res.status,
        });
      }
      if (req.expect === 'json' && res.status < 300 && /^\s*</.test(body)) {
        throw new MarketlensError('upstream_blocked', `${ctx.marketplace} answered HTML where JSON was expected`, {
          upstreamStatus: res.status,
          logContext: { snippet: body.slice(0, 300) },
        });
      }
      return { status: res.status, url: real.href, headers, body };
    }
    throw new MarketlensError('upstream_error', `${ctx.marketplace} redirected more than ${MAX_REDIRECTS} times`);
  }
}

/** Reads a body as text, failing once it grows past `max` bytes instead of buffering it whole. */
export async function readCapped(res: Response, max: number, signal?: AbortSignal): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? '0');
  if (declared > max) {
    await res.body?.cancel();
    throw new MarketlensError('upstream_error', `upstream body of ${declared} bytes exceeds the ${max}-byte cap`);
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  // At the deadline the body is cancelled, which closes the upstream connection: a body dripping past the deadline
  // would otherwise keep being read (and its socket open) long after the lookup answered.
  const onAbort = () => void reader.cancel(signal?.reason).catch(() => undefined);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (signal?.aborted) throw signal.reason;
      size += value.byteLength;
      if (size > max) {
        void reader.cancel().catch(() => undefined);
        throw new MarketlensError('upstream_error', `upstream body exceeds the ${max}-byte cap`);
      }
      chunks.push(value);
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  if (signal?.aborted) throw signal.reason;
  return new TextDecoder(charsetOf(res.headers.get('content-type'))).decode(Buffer.concat(chunks));
}

function charsetOf(contentType: string | null): string {
  const m = contentType?.match(/charset=["']?([\w-]+)/i);
  if (!m) return 'utf-8';
  try {
    new TextDecoder(m[1]);
    return m[1]!;
  } catch {
    return 'utf-8';
  }
}

/** Network failures and aborts → the contract's codes; a deadline abort is a timeout. */
export function toUpstreamError(e: unknown, ctx: RequestContext): MarketlensError {
  if (isMarketlensError(e)) return e;
  if (ctx.signal.aborted) {
    return new MarketlensError('upstream_timeout', `${ctx.marketplace} did not answer within the deadline`, { cause: e });
  }
  const cause = (e as { cause?: { code?: string } })?.cause;
  const detail = cause?.code ?? (e as Error)?.message ?? 'network error';
  return new MarketlensError('upstream_error', `${ctx.marketplace} could not be reached (${detail})`, { cause: e });
}
