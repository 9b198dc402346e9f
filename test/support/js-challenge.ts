/**
 * A Cloudflare-style JavaScript challenge on a FakeUpstream. Without a valid `cf_clearance` cookie every protected
 * path answers 403 with the "Just a moment…" page and Cloudflare's markers; that page's script computes the clearance
 * (something only a client that runs JavaScript can do), sets the cookie and reloads. Like Cloudflare, a clearance
 * is bound to the User-Agent that first presented it. `rotate()` invalidates every clearance handed out so far.
 */
import type { ServerResponse } from 'node:http';
import type { FakeUpstream, LoggedRequest } from './fake-upstream.js';

export class JsChallenge {
  private salt = 1;
  /** Clearance value → the User-Agent it is bound to. */
  private readonly bound = new Map<string, string>();
  /** How many challenge pages were served. */
  served = 0;

  constructor(private readonly fake: FakeUpstream) {}

  /** The clearance the challenge script computes for the current salt. */
  get clearance(): string {
    let n = 0;
    for (let i = 1; i <= 1000; i++) n += i * this.salt;
    return (n * 7).toString(36);
  }

  rotate(): void {
    this.salt++;
    this.bound.clear();
  }

  /** True when the request carries the current clearance, from the User-Agent that earned it. */
  passes(req: LoggedRequest): boolean {
    const value = /(?:^|;\s*)cf_clearance=([^;]+)/.exec(String(req.headers.cookie ?? ''))?.[1];
    if (value !== this.clearance) return false;
    const ua = String(req.headers['user-agent'] ?? '');
    const owner = this.bound.get(value);
    if (owner === undefined) this.bound.set(value, ua);
    return owner === undefined || owner === ua;
  }

  /** Serves `path` behind the challenge: `answer` once passed. */
  protect(path: string, answer: (req: LoggedRequest, res: ServerResponse) => void): this {
    this.fake.on(path, (req, res) => {
      if (this.passes(req)) return answer(req, res);
      this.challenge(res);
    });
    return this;
  }

  /** The challenge page (what Cloudflare's managed challenge looks like to a plain client). */
  challenge(res: ServerResponse): void {
    this.served++;
    const script = `window._cf_chl_opt = { cType: 'managed', cRay: 'fake' };
setTimeout(function () {
  var n = 0;
  for (var i = 1; i <= 1000; i++) n += i * ${this.salt};
  document.cookie = 'cf_clearance=' + (n * 7).toString(36) + '; path=/; max-age=3600';
  location.reload();
}, 30);`;
    res
      .writeHead(403, { 'content-type': 'text/html; charset=utf-8', 'cf-mitigated': 'challenge', server: 'cloudflare' })
      .end(
        `<!DOCTYPE html><html><head><title>Just a moment...</title></head><body><div id="challenge-form">Checking your browser before accessing the site.</div><script>${script}</script></body></html>`,
      );
  }
}
