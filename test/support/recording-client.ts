/**
 * A recording HttpClient for security tests: wraps the real client (SSRF guard, origin overrides, redirects and all)
 * and logs every request an operation asks for and the final URL of every answer, so a test can prove which hosts
 * the operations tried to reach.
 */
import type { Config } from '../../src/config.js';
import { isMarketplaceHost, type Marketplace } from '../../src/marketplaces/catalog.js';
import { createHttpClient } from '../../src/upstream/create-client.js';
import type { HttpClient, RequestContext, UpstreamRequest, UpstreamResponse } from '../../src/upstream/http-client.js';

export interface RecordedRequest {
  marketplace: Marketplace;
  /** The URL the operation asked for (real-marketplace form). */
  url: string;
  /** Final URL after redirects (real form), when the request answered. */
  finalUrl?: string;
  /** Error code when the request failed. */
  error?: string;
}

export class RecordingHttpClient implements HttpClient {
  readonly log: RecordedRequest[] = [];

  constructor(private readonly inner: HttpClient) {}

  /** Wraps the client the configuration would give the service. @example RecordingHttpClient.forConfig(testConfig({ MARKETLENS_RESALE_B_ORIGIN: fake.origin })) */
  static forConfig(config: Config): RecordingHttpClient {
    return new RecordingHttpClient(createHttpClient(config));
  }

  /** Lookups stay units (one limiter slot, one breaker verdict) in the wrapped client. */
  lookup<T>(ctx: RequestContext, run: (ctx: RequestContext) => Promise<T>): Promise<T> {
    return this.inner.lookup ? this.inner.lookup(ctx, run) : run(ctx);
  }

  async request(req: UpstreamRequest, ctx: RequestContext): Promise<UpstreamResponse> {
    const entry: RecordedRequest = { marketplace: ctx.marketplace as Marketplace, url: req.url };
    this.log.push(entry);
    try {
      const res = await this.inner.request(req, ctx);
      entry.finalUrl = res.url;
      return res;
    } catch (e) {
      entry.error = String((e as { code?: unknown }).code ?? (e as Error).message);
      throw e;
    }
  }

  close(): Promise<void> {
    return this.inner.close?.() ?? Promise.resolve();
  }

  clear(): void {
    this.log.length = 0;
  }

  /**
   * Every URL (asked for or answered from) whose host is not one of its marketplace's allowlisted hosts, or that
   * is not https on the default port: what an SSRF test expects to be empty.
   */
  offAllowlist(): string[] {
    const bad: string[] = [];
    for (const r of this.log) {
      for (const u of [r.url, r.finalUrl]) {
        if (u === undefined) continue;
        if (!isAllowed(r.marketplace, u)) bad.push(`${r.marketplace} ${u}`);
      }
    }
    return bad;
  }
}

/** True when `url` is https, default port, on a host `marketplace` owns (MARKETPLACE_INFO). */
export function isAllowed(marketplace: Marketplace, url: string): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  return (
    u.protocol === 'https:' && u.port === '' && !u.username && !u.password && isMarketplaceHost(marketplace, u.hostname)
  );
}
