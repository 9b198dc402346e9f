/**
 * The verdict on one upstream answer, whatever its status: a block page, throttling or a 5xx becomes a failure of its
 * kind (upstream-failure.ts); every other answer (2xx, 404, other 4xx) goes to the operation.
 */
import type { MarketplaceDescriptor } from '../marketplaces/descriptor.js';
import { judgeAnswer } from './block-detection.js';
import { refusedOversizedHeaders } from './cookie-jar.js';
import type { UpstreamRequest, UpstreamResponse } from './http-client.js';
import { retryAfterSeconds } from './retry.js';
import { fail } from './upstream-failure.js';

/** Blocks, throttling and 5xx become failures; every other answer (2xx, 404, other 4xx) goes to the operation. */
export function judgeResponse(d: MarketplaceDescriptor, req: UpstreamRequest, res: UpstreamResponse): void {
  if (refusedOversizedHeaders(res.status, res.body)) {
    // Our Cookie header grew past what the site accepts: as 'blocked', the retry gets a fresh session (empty jar).
    throw fail('upstream_error', `${d.id} refused our request headers as too large (HTTP ${res.status})`, 'blocked', {
      upstreamStatus: res.status,
      snippet: res.body,
    });
  }
  const block = judgeAnswer(res, req, d);
  const retryAfter = retryAfterSeconds(res.headers['retry-after']);
  if (block) {
    throw fail('upstream_blocked', `${d.id} answered with a ${block.reason}`, 'blocked', {
      upstreamStatus: res.status,
      retryAfter,
      snippet: res.body,
    });
  }
  if (res.status === 429) {
    throw fail(
      'upstream_blocked',
      `${d.id} is throttling us (HTTP 429${retryAfter !== undefined ? `, Retry-After ${retryAfter} s` : ''})`,
      'throttled',
      {
        upstreamStatus: 429,
        retryAfter,
      },
    );
  }
  if (res.status >= 500) {
    throw fail('upstream_error', `${d.id} answered HTTP ${res.status}`, 'http_5xx', {
      upstreamStatus: res.status,
      snippet: res.body,
    });
  }
}
