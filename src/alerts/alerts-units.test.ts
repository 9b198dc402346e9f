/** Pure parts of alerts: signatures a standardwebhooks receiver accepts, refused addresses, chat formats, backoff. */
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { isBlockedAddress } from './address-guard.js';
import { bodyFor, chatTarget } from './chat-format.js';
import { retryAfter } from './send.js';
import { generateSecret, signatureHeaders } from './signing.js';
import { parseTargetUrl } from './target-guard.js';
import { backoffMs } from './worker.js';

describe('signatures', () => {
  it('verify with the standardwebhooks package, and fail for another secret or a changed body', () => {
    const secret = generateSecret();
    const body = JSON.stringify({
      type: 'price.changed',
      timestamp: '2026-11-24T00:00:00.000Z',
      data: { old: 1, new: 2 },
    });
    const now = Math.floor(Date.now() / 1000);
    const headers = signatureHeaders(secret, 'msg_1', now, body);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateSecret()).verify(body, { ...headers })).toThrow();
    expect(() => new Webhook(secret).verify(body.replace('"new":2', '"new":3'), { ...headers })).toThrow();
    // Receivers refuse stale timestamps (replays): the header is the send time, not the event's.
    expect(() =>
      new Webhook(secret).verify(body, { ...signatureHeaders(secret, 'msg_1', now - 3600, body) }),
    ).toThrow();
  });
});

describe('refused addresses', () => {
  it.each([
    '127.0.0.1',
    '127.8.9.1',
    '::1',
    '[::1]',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.0.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::',
    'fe80::1',
    'fd00::1',
    'fd00:ec2::254',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '224.0.0.1',
    'not-an-ip',
  ])('%s is refused', (a) => {
    expect(isBlockedAddress(a)).toBe(true);
  });
  it.each(['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111', '172.32.0.1'])('%s is allowed', (a) => {
    expect(isBlockedAddress(a)).toBe(false);
  });

  // Issue 27, item 8: IPv6 forms that carry an IPv4 address are judged by that address.
  it.each([
    ['::127.0.0.1', 'IPv4-compatible, dotted'],
    ['::7f00:1', 'IPv4-compatible, hex (as URL normalises it)'],
    ['::a9fe:a9fe', 'IPv4-compatible metadata service'],
    ['::ffff:0:7f00:1', 'IPv4-translated'],
    ['::ffff:0:127.0.0.1', 'IPv4-translated, dotted'],
    ['::ffff:0:c0a8:101', 'IPv4-translated 192.168.1.1'],
    ['0:0:0:0:0:ffff:0a00:0001', 'IPv4-mapped 10.0.0.1, full form'],
    ['64:ff9b::7f00:1', 'NAT64 well-known prefix → 127.0.0.1'],
    ['64:ff9b::169.254.169.254', 'NAT64 well-known prefix → metadata'],
    ['64:ff9b:1::7f00:1', 'NAT64 local-use prefix → 127.0.0.1'],
    ['64:ff9b:1::10.0.0.1', 'NAT64 local-use prefix → 10.0.0.1'],
    ['64:ff9b:1:ab::808:808', 'NAT64 local-use prefix, IPv4 not in the last 32 bits (cannot be judged)'],
    ['2002:7f00:1::', '6to4 → 127.0.0.1'],
    ['2002:a9fe:a9fe::1', '6to4 → 169.254.169.254'],
    ['2002:c0a8:101:1::1', '6to4 → 192.168.1.1'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo, client 127.0.0.1'],
    ['2001:0:7f00:1::1', 'Teredo, server 127.0.0.1'],
  ])('%s is refused (%s)', (a) => {
    expect(isBlockedAddress(a)).toBe(true);
  });
  it.each([
    ['64:ff9b::808:808', 'NAT64 → 8.8.8.8'],
    ['64:ff9b::1.1.1.1', 'NAT64 → 1.1.1.1'],
    ['64:ff9b:1::808:808', 'NAT64 local-use → 8.8.8.8'],
    ['2002:808:808::1', '6to4 → 8.8.8.8'],
    ['::ffff:808:808', 'IPv4-mapped 8.8.8.8'],
    ['::ffff:0:808:808', 'IPv4-translated 8.8.8.8'],
    ['::8.8.8.8', 'IPv4-compatible 8.8.8.8'],
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'Teredo, server 65.54.227.120, client 8.8.8.8'],
  ])('%s is allowed (%s)', (a) => {
    expect(isBlockedAddress(a)).toBe(false);
  });
  it('allows local targets only when configured', () => {
    expect(() => parseTargetUrl('http://127.0.0.1:9/x', { allowHttp: true, allowPrivate: false })).toThrow(/loopback/);
    expect(() => parseTargetUrl('http://127.0.0.1:9/x', { allowHttp: false, allowPrivate: true })).toThrow(/https/);
    expect(parseTargetUrl('http://127.0.0.1:9/x', { allowHttp: true, allowPrivate: true }).port).toBe('9');
    expect(() => parseTargetUrl('https://user:pw@example.com/', { allowHttp: false, allowPrivate: false })).toThrow(
      /user information/,
    );
  });
});

describe('Discord and Slack', () => {
  const payload = JSON.stringify({
    type: 'price.changed',
    timestamp: '2026-11-24T00:00:00.000Z',
    data: {
      name: 'Air Jordan 1 Chicago',
      size: '10',
      old: 300,
      new: 270,
      change_pct: -10,
      currency: 'USD',
      url: 'https://www.goat.com/sneakers/x',
    },
  });
  it('recognises their incoming-webhook URLs only', () => {
    expect(chatTarget(new URL('https://discord.com/api/webhooks/1/abc'))).toBe('discord');
    expect(chatTarget(new URL('https://ptb.discordapp.com/api/webhooks/1/abc'))).toBe('discord');
    expect(chatTarget(new URL('https://hooks.slack.com/services/T/B/x'))).toBe('slack');
    expect(chatTarget(new URL('https://discord.com.evil.example/api/webhooks/1'))).toBeUndefined();
    expect(chatTarget(new URL('https://example.com/hook'))).toBeUndefined();
  });
  it('sends one short line: product, size, old → new, link', () => {
    const line = 'Air Jordan 1 Chicago size 10: 300 USD → 270 USD (-10 %) https://www.goat.com/sneakers/x';
    expect(JSON.parse(bodyFor(new URL('https://discord.com/api/webhooks/1/abc'), payload))).toEqual({
      content: `[price.changed] ${line}`,
    });
    expect(JSON.parse(bodyFor(new URL('https://hooks.slack.com/services/T/B/x'), payload))).toEqual({
      text: `[price.changed] ${line}`,
    });
    expect(bodyFor(new URL('https://example.com/hook'), payload)).toBe(payload);
  });
});

describe('retry timing', () => {
  it('doubles from the base with ± 25 % jitter, capped', () => {
    const t = { baseDelayMs: 1000, maxDelayMs: 60_000 };
    expect(backoffMs(1, t, () => 0.5)).toBe(1000);
    expect(backoffMs(3, t, () => 0.5)).toBe(4000);
    expect(backoffMs(3, t, () => 0)).toBe(3000);
    expect(backoffMs(3, t, () => 1)).toBe(5000);
    expect(backoffMs(30, t, () => 0.5)).toBe(60_000);
  });
  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(retryAfter('120')).toBe(120);
    expect(retryAfter(new Date(Date.now() + 30_000).toUTCString())).toBeGreaterThanOrEqual(29);
    expect(retryAfter('soon')).toBeNull();
    expect(retryAfter(undefined)).toBeNull();
  });
});
