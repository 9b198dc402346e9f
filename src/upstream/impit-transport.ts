/**
 * The production transport: impit, a Chrome-impersonating client (TLS/HTTP2 fingerprint and navigation headers of
 * the pinned Chrome profile), with proxies. Redirects are left to the resilient client.
 */
import { Impit } from 'impit';
import { readCapped } from './capped-body.js';
import { PINNED_BROWSER } from './profiles.js';
import type { SessionOptions, Transport, TransportSession, WireRequest, WireResponse } from './transport.js';

export class ImpitTransport implements Transport {
  session(options: SessionOptions): TransportSession {
    const impit = new Impit({
      ...(options.disguise ? { browser: PINNED_BROWSER } : {}),
      followRedirects: false,
      ...(options.proxyUrl ? { proxyUrl: options.proxyUrl } : {}),
    });
    return {
      async fetch(url: string, req: WireRequest): Promise<WireResponse> {
        const res = await impit.fetch(url, {
          method: req.method as 'GET',
          headers: req.headers,
          ...(req.body !== undefined ? { body: req.body } : {}),
          redirect: 'manual',
          signal: req.signal,
        });
        return {
          status: res.status,
          headers: res.headers,
          text: (maxBytes) => readCapped(res as unknown as Response, maxBytes, req.signal),
          cancel: async () => {
            await res.body?.cancel().catch(() => undefined);
          },
        };
      },
    };
  }
}
