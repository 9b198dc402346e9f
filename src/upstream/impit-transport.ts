/**
 * The production transport: impit, a Chrome-impersonating client (TLS/HTTP2 fingerprint and navigation headers of
 * the pinned Chrome profile), with proxies. Redirects are left to the resilient client.
 */
import { Impit, type ImpitResponse } from 'impit';
import { readCapped, type PendingRead } from './capped-body.js';
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
        // impit gets a signal of its own that follows the deadline only until the headers are in: it aborts the
        // response natively when its signal fires, which mid-body would strand the connection (releaseAtDeadline).
        const headers = new AbortController();
        const follow = () => headers.abort(req.signal.reason);
        if (req.signal.aborted) follow();
        else req.signal.addEventListener('abort', follow, { once: true });
        let res: ImpitResponse;
        try {
          res = await impit.fetch(url, {
            method: req.method as 'GET',
            headers: req.headers,
            ...(req.body !== undefined ? { body: req.body } : {}),
            redirect: 'manual',
            signal: headers.signal,
            // The signal does not reach an answer that never starts: impit's own timeout closes that connection.
            // Later than the signal by NATIVE_SLACK_MS, so it never cuts a body that releaseAtDeadline is letting go.
            ...(req.endsAt !== undefined ? { timeout: Math.max(1, req.endsAt - Date.now()) + NATIVE_SLACK_MS } : {}),
          });
        } finally {
          req.signal.removeEventListener('abort', follow);
        }
        return {
          status: res.status,
          headers: res.headers,
          text: (maxBytes) =>
            readCapped(res as unknown as Response, maxBytes, req.signal, (reader, inFlight) =>
              releaseAtDeadline(res, reader, inFlight),
            ),
          cancel: async () => {
            await res.body?.cancel().catch(() => undefined);
          },
        };
      },
    };
  }
}

/** How long a body may take, after the deadline, to end the read in flight by itself (see releaseAtDeadline). */
const QUIET_MS = 1000;
/** How long after the signal impit's native timeout ends a request (past QUIET_MS and the settle pause). */
const NATIVE_SLACK_MS = QUIET_MS + 1000;
/** How long the JS thread pauses for impit to end a read natively (see endReadNatively). */
const SETTLE_MS = 5;
const settleClock = new Int32Array(new SharedArrayBuffer(4));

/**
 * Lets go of an impit body at the deadline so that the upstream connection closes now, not when V8 gets round to it.
 *
 * impit's body is a napi-rs ReadableStream whose Rust side (reqwest's body, which owns the connection) sits behind a
 * lock that a read holds while it waits for the next chunk. A cancel drops the Rust body only if it finds that lock
 * free; one that finds it taken just marks the stream cancelled, the body lives on until the stream object is
 * garbage-collected (seconds to minutes), and the socket stays ESTABLISHED with unread data meanwhile. (And a read
 * that fails first errors the stream, after which a cancel never reaches Rust at all.) So the cancel must come when
 * no read is in flight: at once when none is; else as soon as the pending read ends by itself — the upstream's next
 * bytes, its end, or its failure — which a dripping body does within one drip.
 */
function releaseAtDeadline(
  res: ImpitResponse,
  reader: ReadableStreamDefaultReader<Uint8Array>,
  inFlight: PendingRead | undefined,
): void {
  const cancel = () => void reader.cancel().catch(() => undefined);
  if (!inFlight) return cancel();
  const quiet = setTimeout(() => endReadNatively(res, cancel), QUIET_MS);
  inFlight.then(
    (r) => {
      clearTimeout(quiet);
      if (!r.done) cancel();
    },
    () => clearTimeout(quiet),
  );
}

/**
 * For a body silent past QUIET_MS: `abort()` ends the read natively, on a tokio worker, which frees the lock, and the
 * JS thread blocks (Atomics.wait, not a timer) meanwhile, because were the event loop to run, the read's failure
 * could reach the stream first and make the cancel a no-op. Best effort: a worker parked for a second sometimes
 * wakes later than the pause (measured on stalled bodies: 15 of 100 times with a 1 ms pause, 3 of 50 with 5 ms, 1 of
 * 50 with 20 ms; 5 ms of blocked event loop per silent body is the trade), and then impit's own timeout
 * (NATIVE_SLACK_MS after the signal) ends the request. Such a body sends nothing, so no unread data piles up.
 */
function endReadNatively(res: ImpitResponse, cancel: () => void): void {
  res.abort();
  Atomics.wait(settleClock, 0, 0, SETTLE_MS);
  cancel();
}
