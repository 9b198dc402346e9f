/** The session signer and the cookie header, with an injected clock; the HTTP side is test/dashboard/session.test.ts. */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { encodingFor, type Asset } from './assets.js';
import { SESSION_COOKIE, SessionSigner, cookieValue, sessionCookieHeader } from './session.js';

describe('SessionSigner', () => {
  it('reads back what it issued until it expires, and refuses it after sign-out', () => {
    let now = 1_000_000;
    const signer = new SessionSigner(randomBytes(32), () => now, 60_000);
    const { cookieValue: value, session, csrfToken } = signer.issue('key-1');
    expect(signer.read(value)).toEqual({
      ok: true,
      session: { keyId: 'key-1', id: session.id, expiresAt: now + 60_000 },
    });
    expect(signer.checkCsrf(session, csrfToken)).toBe(true);
    expect(signer.checkCsrf(session, undefined)).toBe(false);
    expect(signer.checkCsrf(session, signer.issue('key-1').csrfToken)).toBe(false);
    now += 59_999;
    expect(signer.read(value).ok).toBe(true);
    now += 1;
    expect(signer.read(value)).toEqual({ ok: false, reason: 'expired' });
    now -= 1;
    signer.end(session);
    expect(signer.read(value)).toEqual({ ok: false, reason: 'ended' });
  });

  it('refuses a cookie signed with another secret, or changed in any part', () => {
    const signer = new SessionSigner(randomBytes(32));
    const other = new SessionSigner(randomBytes(32)).issue('key-1').cookieValue;
    expect(signer.read(other)).toEqual({ ok: false, reason: 'forged' });
    const value = signer.issue('key-1').cookieValue;
    const [body, mac] = value.split('.') as [string, string];
    for (const changed of [`${body}x.${mac}`, `${body}.${mac}x`, `.${mac}`, body, '', '.']) {
      expect(signer.read(changed), changed).toEqual({ ok: false, reason: 'forged' });
    }
  });
});

describe('the session cookie', () => {
  it('is HttpOnly, SameSite=Strict and expiring; Secure only over https', () => {
    expect(sessionCookieHeader('v', 43_200_000, false)).toBe(
      `${SESSION_COOKIE}=v; Path=/; Max-Age=43200; HttpOnly; SameSite=Strict`,
    );
    expect(sessionCookieHeader('v', 43_200_000, true)).toBe(
      `${SESSION_COOKIE}=v; Path=/; Max-Age=43200; HttpOnly; SameSite=Strict; Secure`,
    );
    expect(sessionCookieHeader('', 0, true)).toMatch(/^ml_session=; Path=\/; Max-Age=0; /);
  });

  it('is found among other cookies', () => {
    expect(cookieValue('a=1; ml_session=abc.def; b=2', SESSION_COOKIE)).toBe('abc.def');
    expect(cookieValue('xml_session=1', SESSION_COOKIE)).toBeUndefined();
    expect(cookieValue(undefined, SESSION_COOKIE)).toBeUndefined();
  });
});

describe('asset encoding', () => {
  const asset: Asset = {
    name: 'a.js',
    type: 'text/javascript',
    identity: Buffer.from('i'),
    br: Buffer.from('b'),
    gzip: Buffer.from('g'),
  };
  it('prefers brotli, then gzip, honours q=0, and falls back to identity', () => {
    expect(encodingFor(asset, 'gzip, deflate, br').encoding).toBe('br');
    expect(encodingFor(asset, 'br;q=0, gzip').encoding).toBe('gzip');
    expect(encodingFor(asset, 'br;q=0.0, gzip;q=0').encoding).toBeUndefined();
    expect(encodingFor(asset, undefined).body.toString()).toBe('i');
  });
});
