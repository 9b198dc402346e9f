import { describe, expect, it } from 'vitest';
import { MARKETPLACE_INFO } from '../marketplaces/catalog.js';
import { detectBlock, judgeAnswer } from './block-detection.js';
import { AKAMAI_DENIAL, CLOUDFLARE_CHALLENGE, PERIMETERX_BLOCK } from '../../test/support/upstream-fixtures.js';

const html = (body: string, status = 200) => ({ status, headers: { 'content-type': 'text/html' }, body });
const page = { expect: 'html' as const };
const api = { expect: 'json' as const };

describe('judgeAnswer with a marketplace descriptor', () => {
  const chrono24 = MARKETPLACE_INFO.watchmarket;
  const stockx = MARKETPLACE_INFO['resale-a'];
  const bestbuy = MARKETPLACE_INFO.electronics;

  it('a challenge page is a block whatever its status', () => {
    const challenge =
      '<html><head><title>Just a moment...</title></head><body><form id="challenge-form"></form></body></html>';
    for (const status of [200, 403, 503])
      expect(judgeAnswer(html(challenge, status), page, chrono24)?.reason).toMatch(/Cloudflare challenge/);
  });

  it('real data is never a block for traces its scripts carry (Cloudflare injects challenge-platform into real pages)', () => {
    const results =
      '<html><script src="/cdn-cgi/challenge-platform/h/b/scripts/jsd/main.js"></script><div id="wt-watches"></div></html>';
    expect(judgeAnswer(html(results), page, chrono24)).toBeUndefined();
  });

  it('a page that is not real data and carries a trace is a block, even with 200 (Akamai on Best Buy)', () => {
    const akamai = '<HTML><HEAD><TITLE>Access Denied</TITLE></HEAD><BODY>Reference&#32;&#35;18&#46;1a2b</BODY></HTML>';
    expect(judgeAnswer(html(akamai), page, bestbuy)?.reason).toMatch(/Akamai/);
    // Without the descriptor (no "real data" check) the same 200 page is data: the trace alone proves nothing.
    expect(judgeAnswer(html(akamai), page)).toBeUndefined();
  });

  it('a page that is neither real data nor marked is data for the parser (upstream_changed, not a retry storm)', () => {
    expect(judgeAnswer(html('<html><body>new layout</body></html>'), page, bestbuy)).toBeUndefined();
  });

  it("a status the descriptor calls a bot wall is a block (StockX's 403), other marketplaces' 403 is the operation's", () => {
    expect(judgeAnswer({ status: 403, headers: {}, body: '{"message":"no"}' }, api, stockx)?.reason).toMatch(
      /StockX bot wall/,
    );
    expect(
      judgeAnswer({ status: 403, headers: {}, body: '{"message":"no"}' }, api, MARKETPLACE_INFO['resale-b']),
    ).toBeUndefined();
  });

  it('a PerimeterX block JSON is a block even where JSON is real data', () => {
    const px = JSON.stringify({ appId: 'PXabc123', jsClientSrc: '/x.js', blockScript: '/b.js' });
    expect(judgeAnswer({ status: 200, headers: {}, body: px }, api, MARKETPLACE_INFO['resale-b'])?.reason).toMatch(
      /PerimeterX/,
    );
  });

  it('the warm-up (not data) counts only decisive markers', () => {
    const home = '<html><script src="/cdn-cgi/challenge-platform/x.js"></script>home</html>';
    expect(judgeAnswer(html(home), page, chrono24, { data: false })).toBeUndefined();
  });
});

describe('detectBlock', () => {
  const html = { 'content-type': 'text/html' };
  it.each([
    [403, html, CLOUDFLARE_CHALLENGE, 'Cloudflare challenge'],
    [503, html, CLOUDFLARE_CHALLENGE, 'Cloudflare challenge'],
    [403, {}, JSON.stringify(PERIMETERX_BLOCK), 'PerimeterX'],
    [
      403,
      html,
      '<html><title>Access to this page has been denied</title><div id="px-captcha"></div></html>',
      'PerimeterX',
    ],
    [403, html, AKAMAI_DENIAL, 'Akamai'],
    [429, html, '<html><head><title>Captcha</title></head><div class="g-recaptcha"></div></html>', 'captcha'],
  ])('HTTP %i with markers → blocked (%#)', (status, headers, body, name) => {
    expect(detectBlock(status, headers, body, 'json')?.reason).toContain(name);
    expect(detectBlock(status, headers, body, 'html')?.reason).toContain(name);
  });

  it('cf-mitigated: challenge is a block whatever the status and body', () => {
    expect(detectBlock(200, { 'cf-mitigated': 'challenge' }, '{}', 'json')).toBeDefined();
  });

  it('HTML where JSON was expected is a block; on an HTML page it is data', () => {
    expect(detectBlock(200, html, '  <!doctype html><p>x</p>', 'json')).toBeDefined();
    expect(detectBlock(200, html, '<!doctype html><p>x</p>', 'html')).toBeUndefined();
  });

  it('plain errors and data are not blocks', () => {
    expect(detectBlock(404, {}, '{"error":"not found"}', 'json')).toBeUndefined();
    expect(detectBlock(503, html, '<html>maintenance</html>', 'json')).toBeUndefined();
    expect(detectBlock(200, {}, '[{"a":1}]', 'json')).toBeUndefined();
    // A product page that merely mentions "Access Denied" with a 200 is data.
    expect(detectBlock(200, html, '<html>Access Denied Reference #1</html>', 'html')).toBeUndefined();
  });
});
