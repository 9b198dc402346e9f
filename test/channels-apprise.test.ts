/**
 * Apprise-style channel URLs: each scheme parsed into the structured form, the forms a self-hoster writes (token in
 * the user part, ?smtp=, ?mode=, priority names), bad input refused with a 400 naming the field, and the shown target
 * free of every secret.
 */
import { describe, expect, it } from 'vitest';
import { displayTarget, isChannelUrl, parseChannelUrl, redactChannel } from '../src/alerts/channels/apprise.js';
import { MarketlensError } from '../src/errors.js';

function refusal(input: string): { param: string; message: string } {
  try {
    parseChannelUrl(input);
  } catch (e) {
    expect(e).toBeInstanceOf(MarketlensError);
    const err = e as MarketlensError;
    expect(err.code).toBe('invalid_parameter');
    const [first] = err.errors ?? [];
    return first!;
  }
  throw new Error(`${input} was accepted`);
}

describe('Apprise-style channel URLs', () => {
  it('tgram://token/chat', () => {
    const c = parseChannelUrl('tgram://123456789:AAH-x_yz/-100987654');
    expect(c).toEqual({ type: 'telegram', bot_token: '123456789:AAH-x_yz', chat_id: '-100987654' });
    expect(parseChannelUrl('tgram://123:abc/@my_channel')).toMatchObject({ chat_id: '@my_channel' });
    expect(displayTarget(c)).toBe('tgram://…/-100987654');
    expect(JSON.stringify(redactChannel(c))).not.toContain('AAH');
  });

  it('ntfy and ntfys: topic only, host, port, user, token, priority and tags', () => {
    expect(parseChannelUrl('ntfy://alerts')).toEqual({
      type: 'ntfy',
      server: null,
      topic: 'alerts',
      token: null,
      username: null,
      password: null,
      priority: null,
      tags: [],
    });
    expect(parseChannelUrl('ntfys://ntfy.example.com:8443/prices?priority=high&tags=shoe,moneybag')).toMatchObject({
      server: 'https://ntfy.example.com:8443',
      topic: 'prices',
      priority: 4,
      tags: ['shoe', 'moneybag'],
    });
    expect(parseChannelUrl('ntfy://ntfy.sh/prices')).toMatchObject({ server: 'https://ntfy.sh' });
    expect(parseChannelUrl('ntfy://lan-box:8080/prices?priority=5')).toMatchObject({
      server: 'http://lan-box:8080',
      priority: 5,
    });
    const withUser = parseChannelUrl('ntfys://phil:p%40ss@ntfy.example.com/prices');
    expect(withUser).toMatchObject({ username: 'phil', password: 'p@ss', token: null });
    expect(displayTarget(withUser)).toBe('ntfys://phil:…@ntfy.example.com/prices');
    const withToken = parseChannelUrl('ntfys://tk_abc123@ntfy.example.com/prices');
    expect(withToken).toMatchObject({ token: 'tk_abc123', username: null });
    expect(parseChannelUrl('ntfys://:tk_abc123@ntfy.example.com/prices')).toMatchObject({ token: 'tk_abc123' });
    expect(displayTarget(withToken)).toBe('ntfys://…@ntfy.example.com/prices');
    expect(JSON.stringify(redactChannel(withToken))).not.toContain('tk_abc123');
    expect(JSON.stringify(redactChannel(withUser))).not.toContain('p@ss');
  });

  it('mailto and mailtos: user, host, port, smtp relay, from, to, mode', () => {
    const c = parseChannelUrl('mailtos://me%40example.com:s3cret@smtp.example.com:587?to=a@x.org,b@y.org');
    expect(c).toEqual({
      type: 'email',
      host: 'smtp.example.com',
      port: 587,
      tls_mode: 'starttls',
      username: 'me@example.com',
      password: 's3cret',
      from: 'me@example.com',
      to: ['a@x.org', 'b@y.org'],
    });
    expect(displayTarget(c)).toBe(
      'mailtos://me%40example.com:…@smtp.example.com:587/?to=a@x.org,b@y.org&from=me@example.com&mode=starttls',
    );
    expect(JSON.stringify(redactChannel(c))).not.toContain('s3cret');
    expect(parseChannelUrl('mailtos://bob:pw@example.com?smtp=mail.example.com&mode=ssl')).toMatchObject({
      host: 'mail.example.com',
      tls_mode: 'tls',
      from: 'bob@example.com',
      to: ['bob@example.com'],
    });
    expect(parseChannelUrl('mailto://relay.lan:25?from=alerts@lan&to=me@lan')).toMatchObject({
      tls_mode: 'none',
      port: 25,
      username: null,
      password: null,
    });
  });

  it('tells channel URLs from webhook URLs', () => {
    expect(isChannelUrl('tgram://1:a/2')).toBe(true);
    expect(isChannelUrl('NTFYS://host/topic')).toBe(true);
    expect(isChannelUrl('https://example.com/hook')).toBe(false);
    expect(isChannelUrl('mailto:me@example.com')).toBe(false);
  });

  it('refuses bad URLs with a 400 naming the field', () => {
    expect(refusal('https://example.com/x').message).toMatch(/tgram:\/\//);
    expect(refusal('tgram://123456789:AAH')).toMatchObject({ param: 'channel' });
    expect(refusal('tgram://123456789:AAH/1/2').message).toMatch(/exactly one chat id/);
    expect(refusal('tgram://not-a-token/123')).toMatchObject({ param: 'channel.bot_token' });
    expect(refusal('tgram://1:abc/not a chat')).toMatchObject({ param: 'channel.chat_id' });
    expect(refusal('ntfys://host/a/b').message).toMatch(/one topic/);
    expect(refusal('ntfys://host/bad%20topic')).toMatchObject({ param: 'channel.topic' });
    expect(refusal('ntfys://host/t?priority=loud')).toMatchObject({ param: 'channel.priority' });
    expect(refusal('ntfys://phil@host/t').message).toMatch(/needs a password/);
    expect(refusal('mailtos://u:p@smtp.example.com?to=nobody')).toMatchObject({ param: 'channel.to' });
    expect(refusal('mailtos://smtp.example.com?to=a@b.c')).toMatchObject({ param: 'channel.from' });
    expect(refusal('mailtos://u:p@smtp.example.com?mode=carrier-pigeon')).toMatchObject({
      param: 'channel.tls_mode',
    });
    expect(refusal('mailtos://u:p@smtp.example.com:99999')).toMatchObject({ param: 'channel' });
    expect(refusal(`ntfys://host/${'x'.repeat(3000)}`).message).toMatch(/too long/);
  });
});
