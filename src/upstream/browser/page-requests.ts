/**
 * The two ways the browser tier asks a site for something: a top-level navigation (HTML pages), which waits out
 * JavaScript challenges (a challenge page whose script earns a cookie and reloads), and a `fetch()` from inside a
 * page already on the site (JSON APIs: same origin, the site's own cookies, the headers the site's scripts send).
 */
import type { Page, Response } from 'playwright-core';

export interface PageAnswer {
  status: number;
  /** Final URL as the browser saw it (the wire URL under an origin override). */
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** True when an answer is a bot challenge worth waiting out (the page's script may still pass it). */
export type ChallengeTest = (status: number, headers: Record<string, string>, body: string) => boolean;

interface Seen {
  response: Response;
  body: Promise<string | undefined>;
}

/**
 * Loads `url` in `page`. While the main document is a challenge, waits (at most `challengeWaitMs` in all) for the
 * page to navigate on by itself, and returns the first non-challenge document, or the last challenge when time is up.
 * @example const answer = await navigate(page, new URL('https://www.chrono24.com/'), { challengeWaitMs: 8000, isChallenge })
 */
export async function navigate(
  page: Page,
  url: URL,
  opts: { challengeWaitMs: number; isChallenge: ChallengeTest },
): Promise<PageAnswer> {
  const seen: Seen[] = [];
  let wake: (() => void) | undefined;
  const record = (response: Response): void => {
    if (seen.some((s) => s.response === response)) return;
    // Bodies are read at once: a challenge that reloads quickly takes its document's body with it.
    seen.push({ response, body: response.text().catch(() => undefined) });
    wake?.();
  };
  const onResponse = (response: Response): void => {
    const req = response.request();
    if (!req.isNavigationRequest() || response.frame() !== page.mainFrame()) return;
    if (response.status() >= 300 && response.status() < 400 && response.headers().location) return; // a redirect hop
    record(response);
  };
  page.on('response', onResponse);
  try {
    // `commit`: the document's response is in; its scripts may already be reloading it, which a `load` wait would
    // report as an interrupted navigation.
    const first = await page.goto(url.href, { waitUntil: 'commit', timeout: 0 });
    if (first && !(first.status() >= 300 && first.status() < 400)) record(first);
    if (seen.length === 0) throw new Error(`browser navigation to ${url.href} produced no document`);
    const giveUpAt = Date.now() + opts.challengeWaitMs;
    for (;;) {
      const count = seen.length;
      const answer = await answerOf(page, seen[count - 1]!);
      if (!opts.isChallenge(answer.status, answer.headers, answer.body)) return answer;
      const moved = await new Promise<boolean>((resolve) => {
        if (seen.length > count) return resolve(true);
        const timer = setTimeout(() => resolve(false), Math.max(0, giveUpAt - Date.now()));
        wake = () => {
          clearTimeout(timer);
          resolve(true);
        };
      });
      wake = undefined;
      if (!moved) return answer;
    }
  } finally {
    page.off('response', onResponse);
  }
}

async function answerOf(page: Page, s: Seen): Promise<PageAnswer> {
  const headers = withoutSetCookie(await s.response.allHeaders().catch(() => s.response.headers()));
  // A body Chromium no longer holds (the page moved on): the live document is the best remaining copy.
  const body = (await s.body) ?? (await page.content().catch(() => ''));
  return { status: s.response.status(), url: s.response.url(), headers, body };
}

/** Headers a page's script may not set itself (the browser owns them), dropped from the operation's headers. */
const BROWSER_OWNED =
  /^(cookie|cookie2|host|user-agent|content-length|connection|keep-alive|accept-encoding|accept-language|origin|referer|te|trailer|transfer-encoding|upgrade|via|expect|date|dnt|priority|sec-.*|proxy-.*|upgrade-insecure-requests)$/i;

/** How many times an in-page call is asked again after its document was replaced under it. */
const NAVIGATIONS_TOLERATED = 2;

/**
 * Calls `url` with `fetch()` from inside `page` (which must already be on the site), with the site's cookies.
 * @example await fetchInPage(page, new URL('https://stockx.com/api/p/e'), { method: 'POST', headers: {…}, body: '{…}', accept: 'application/json' })
 */
export async function fetchInPage(
  page: Page,
  url: URL,
  req: { method: string; headers: Record<string, string>; body?: string; accept: string },
): Promise<PageAnswer> {
  const headers: Record<string, string> = { accept: req.accept };
  for (const [k, v] of Object.entries(req.headers)) {
    if (!BROWSER_OWNED.test(k) && v !== '') headers[k.toLowerCase()] = v;
  }
  if (req.body !== undefined && req.method !== 'GET' && !headers['content-type'])
    headers['content-type'] = 'application/json';
  const ask = () =>
    page.evaluate(
      async (r: { url: string; method: string; headers: Record<string, string>; body?: string }) => {
        const res = await fetch(r.url, {
          method: r.method,
          headers: r.headers,
          body: r.body,
          credentials: 'include',
          redirect: 'follow',
        });
        const h: Record<string, string> = {};
        res.headers.forEach((v, k) => {
          h[k] = v;
        });
        return { status: res.status, url: res.url, headers: h, body: await res.text() };
      },
      {
        url: url.href,
        method: req.method,
        headers,
        ...(req.body !== undefined && req.method !== 'GET' ? { body: req.body } : {}),
      },
    );
  // The page may navigate itself at any time (a challenge passing, a bot-manager sensor reloading its document), and a
  // fetch() running in the document it replaced is lost: once the new document has loaded, ask again.
  for (let lost = 0; ; lost++) {
    try {
      const out = await ask();
      return { ...out, headers: withoutSetCookie(out.headers) };
    } catch (e) {
      if (lost >= NAVIGATIONS_TOLERATED || !/Execution context was destroyed/.test(String((e as Error)?.message)))
        throw e;
      await page.waitForLoadState('load').catch(() => undefined);
    }
  }
}

function withoutSetCookie(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() !== 'set-cookie') out[k.toLowerCase()] = v;
  return out;
}
