/**
 * What a subscription sends to, from the request: a webhook `url`, or a `channel` (an Apprise-style URL or the
 * structured object; an Apprise-style URL given as `url` counts too). Checked here at creation (and change) with the
 * same target guard as webhooks: an ntfy server or an SMTP host that is, or resolves to, a loopback, private or
 * metadata address is refused unless the operator allows private targets; deliveries check again at connect time.
 */
import { isIP } from 'node:net';
import { invalidParam } from '../../errors.js';
import { isBlockedAddress } from '../address-guard.js';
import { assertResolvable, bareHost, parseTargetUrl, type TargetPolicy } from '../target-guard.js';
import { checkChannel, displayTarget, isChannelUrl, parseChannelUrl } from './apprise.js';
import type { Channel } from './types.js';

export interface TargetInput {
  url?: string;
  channel?: string | Readonly<Record<string, unknown>>;
}

export interface ResolvedTarget {
  /** The webhook URL, or the channel's target without secrets. */
  url: string;
  channel: Channel | null;
}

export async function resolveTarget(input: TargetInput, policy: TargetPolicy): Promise<ResolvedTarget> {
  if (input.url !== undefined && input.channel !== undefined) {
    throw invalidParam('channel', 'give either url or channel, not both');
  }
  if (input.url === undefined && input.channel === undefined) {
    throw invalidParam('url', 'give a webhook url or a channel');
  }
  let channel: Channel;
  if (input.channel !== undefined) {
    channel =
      typeof input.channel === 'string' ? parseChannelUrl(input.channel, 'channel') : checkChannel(input.channel);
  } else if (isChannelUrl(input.url!)) {
    channel = parseChannelUrl(input.url!, 'url');
  } else {
    const url = parseTargetUrl(input.url!, policy);
    await assertResolvable(url, policy);
    return { url: url.toString(), channel: null };
  }
  await guardChannel(channel, policy);
  return { url: displayTarget(channel), channel };
}

async function guardChannel(c: Channel, policy: TargetPolicy): Promise<void> {
  if (c.type === 'ntfy' && c.server !== null) {
    const server = parseTargetUrl(c.server, policy, 'channel.server');
    await assertResolvable(server, policy, 'channel.server');
  }
  if (c.type === 'email') {
    const host = c.host.replace(/^\[|\]$/g, '');
    let url: URL;
    try {
      url = new URL(`smtp://${host.includes(':') ? `[${host}]` : host}/`);
    } catch {
      throw invalidParam('channel.host', 'is not a valid host');
    }
    const bare = bareHost(url);
    if (!policy.allowPrivate && isIP(bare) !== 0 && isBlockedAddress(bare)) {
      throw invalidParam('channel.host', `${bare} is a loopback, private, link-local or reserved address`);
    }
    await assertResolvable(url, policy, 'channel.host');
  }
}
