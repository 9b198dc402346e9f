/**
 * The one block judge: is an answer a bot-manager block rather than data? The client asks it of every answer,
 * whatever its status, on every tier; a block always takes the same recovery path (new session and proxy, retry
 * within the deadline, next tier, breaker). Generic markers from the notes (§ Anti-bot of each marketplace) apply
 * everywhere; a marketplace adds its own and its "real data looks like this" check in its descriptor.
 */
import type { BlockMarker, MarketplaceDescriptor } from '../marketplaces/descriptor.js';
import type { UpstreamRequest, UpstreamResponse } from './http-client.js';

const BLOCK_STATUSES = new Set([401, 403, 429, 503]);

/** Bot managers every marketplace may sit behind. Decisive ones are whole block pages; the others are traces. */
const GENERIC_MARKERS: readonly BlockMarker[] = [
  {
    name: 'Cloudflare challenge',
    test: /<title>\s*Just a moment|cf-browser-verification|id="challenge-form"|cf_chl_opt/i,
    decisive: true,
  },
  // Cloudflare injects its challenge-platform script into ordinary pages too.
  { name: 'Cloudflare challenge', test: /challenge-platform/i, decisive: false },
  { name: 'Cloudflare block', test: /<title>\s*Attention Required! \| Cloudflare/i, decisive: true },
  { name: 'Cloudflare block', test: /cf-error-details/i, decisive: false },
  {
    name: 'PerimeterX block',
    test: /"appId"\s*:\s*"PX[\w-]*"[\s\S]*"blockScript"|"blockScript"[\s\S]*"appId"\s*:\s*"PX|px-captcha/i,
    decisive: true,
  },
  { name: 'PerimeterX block', test: /Access to this page has been denied/i, decisive: false },
  // Akamai entity-encodes the reference: `Reference&#32;&#35;18&#46;…`. A page may mention "Access Denied" as text.
  {
    name: 'Akamai denial',
    test: /Access Denied[\s\S]{0,2000}Reference(?:\s|&#32;)*(?:#|&#35;)|errors(?:\.|&#46;)edgesuite(?:\.|&#46;)net/i,
    decisive: false,
  },
  { name: 'captcha page', test: /<title>[^<]*captcha|g-recaptcha|h-captcha|cf-turnstile/i, decisive: false },
];

export interface BlockVerdict {
  reason: string;
}

export interface JudgeOptions {
  /**
   * False for answers that are not the data itself (the home-page warm-up): the marketplace's looksReal check does
   * not apply to them, so only decisive markers and block statuses count.
   */
  data?: boolean;
}

/**
 * Judges one answer.
 * @example judgeAnswer({ status: 200, headers: {}, body: challengeHtml, url }, { expect: 'html' }, chrono24)
 *   // { reason: 'Cloudflare challenge (HTTP 200)' }
 */
export function judgeAnswer(
  res: Pick<UpstreamResponse, 'status' | 'headers' | 'body'> & { url?: string },
  req: Pick<UpstreamRequest, 'expect'> & Partial<UpstreamRequest>,
  marketplace?: MarketplaceDescriptor,
  options: JudgeOptions = {},
): BlockVerdict | undefined {
  const { status, headers, body } = res;
  if ((headers['cf-mitigated'] ?? '').toLowerCase() === 'challenge')
    return { reason: `Cloudflare challenge (HTTP ${status})` };
  const head = body.slice(0, 20_000);
  const markers = marketplace ? [...GENERIC_MARKERS, ...marketplace.blockMarkers] : GENERIC_MARKERS;
  if (marketplace?.blockStatuses?.includes(status)) {
    // Always a block; name the bot manager when its page says which one (the operator's first question).
    const named = markers.find((m) => m.test.test(head));
    return { reason: named ? `${named.name} (HTTP ${status})` : `${marketplace.site} bot wall (HTTP ${status})` };
  }
  const decisive = markers.find((m) => m.decisive && m.test.test(head));
  if (decisive) return { reason: `${decisive.name} (HTTP ${status})` };
  const looksReal = options.data === false ? undefined : marketplace?.looksReal;
  const real = looksReal ? looksReal({ url: '', ...res }, { url: '', ...req }) : undefined;
  if (real === true) return undefined;
  // Traces count on a block status, or on any status once the marketplace says this is not what its data looks like.
  if (BLOCK_STATUSES.has(status) || real === false) {
    const trace = markers.find((m) => !m.decisive && m.test.test(head));
    if (trace) return { reason: `${trace.name} (HTTP ${status})` };
  }
  if (req.expect === 'json' && looksLikeHtml(body)) {
    // A JSON API answering a web page: a WAF spoke, not the API (a 429/503 page is throttling or trouble instead).
    if (status >= 200 && status < 300) return { reason: `HTML where JSON was expected (HTTP ${status})` };
    if (BLOCK_STATUSES.has(status) && status !== 429 && status !== 503) {
      return { reason: `HTML error page where JSON was expected (HTTP ${status})` };
    }
  }
  return undefined;
}

/**
 * The generic judge by parts (no marketplace): the browser fetcher's challenge wait and HAR replays use it.
 * @example detectBlock(403, { 'cf-mitigated': 'challenge' }, '<html>…', 'json') // { reason: 'Cloudflare challenge (HTTP 403)' }
 */
export function detectBlock(
  status: number,
  headers: Record<string, string>,
  body: string,
  expect: 'json' | 'html',
  marketplace?: MarketplaceDescriptor,
): BlockVerdict | undefined {
  return judgeAnswer({ status, headers, body }, { expect }, marketplace);
}

function looksLikeHtml(body: string): boolean {
  return /^\s*</.test(body.slice(0, 512));
}
