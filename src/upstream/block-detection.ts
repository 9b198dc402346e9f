/**
 * Is an answer a bot-manager block rather than data? Markers from the notes (§ Anti-bot of each marketplace):
 * Cloudflare "Just a moment…" / `cf-mitigated: challenge`, PerimeterX JSON `{"appId":…,"blockScript":…}` or the
 * px-captcha page, Akamai "Access Denied … Reference #", and HTML where a JSON API was called.
 */
const BLOCK_STATUSES = new Set([401, 403, 429, 503]);

const MARKERS: { name: string; test: RegExp }[] = [
  { name: 'Cloudflare challenge', test: /<title>\s*Just a moment|cf-browser-verification|challenge-platform|id="challenge-form"|cf_chl_opt/i },
  { name: 'Cloudflare block', test: /Attention Required! \| Cloudflare|cf-error-details/i },
  { name: 'PerimeterX block', test: /"appId"\s*:\s*"PX[\w-]*"[\s\S]*"blockScript"|"blockScript"[\s\S]*"appId"\s*:\s*"PX|px-captcha|Access to this page has been denied/i },
  // Akamai entity-encodes the reference: `Reference&#32;&#35;18&#46;…`.
  { name: 'Akamai denial', test: /Access Denied[\s\S]{0,2000}Reference(?:\s|&#32;)*(?:#|&#35;)|errors(?:\.|&#46;)edgesuite(?:\.|&#46;)net/i },
  { name: 'captcha page', test: /<title>[^<]*captcha|g-recaptcha|h-captcha|cf-turnstile/i },
];

export interface BlockVerdict {
  reason: string;
}

/**
 * @example detectBlock(403, { 'cf-mitigated': 'challenge' }, '<html>…', 'json') // { reason: 'Cloudflare challenge (HTTP 403)' }
 */
export function detectBlock(
  status: number,
  headers: Record<string, string>,
  body: string,
  expect: 'json' | 'html',
): BlockVerdict | undefined {
  if ((headers['cf-mitigated'] ?? '').toLowerCase() === 'challenge') return { reason: `Cloudflare challenge (HTTP ${status})` };
  if (BLOCK_STATUSES.has(status)) {
    const head = body.slice(0, 20_000);
    const marker = MARKERS.find((m) => m.test.test(head));
    if (marker) return { reason: `${marker.name} (HTTP ${status})` };
    // A JSON API answering 401/403 with a web page: a WAF spoke, not the API.
    if (expect === 'json' && looksLikeHtml(body) && status !== 429 && status !== 503) {
      return { reason: `HTML error page where JSON was expected (HTTP ${status})` };
    }
    return undefined;
  }
  if (expect === 'json' && status >= 200 && status < 300 && looksLikeHtml(body)) {
    return { reason: `HTML where JSON was expected (HTTP ${status})` };
  }
  return undefined;
}

export function looksLikeHtml(body: string): boolean {
  return /^\s*</.test(body.slice(0, 512));
}
