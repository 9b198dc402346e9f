/**
 * Webhook target safety. At creation: the URL must be http(s) (https unless MARKETLENS_WEBHOOK_ALLOW_HTTP), without
 * user information, and its host must not be or resolve to a refused address (address-guard.ts). At delivery the
 * same check runs again inside the socket's own DNS lookup, so a name re-pointed at 127.0.0.1 after creation
 * (DNS rebinding) is refused at connect time. Redirects are never followed (see deliver.ts).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { invalidParam } from '../errors.js';
import { isBlockedAddress } from './address-guard.js';

export interface TargetPolicy {
  allowHttp: boolean;
  allowPrivate: boolean;
}

const MAX_URL_LENGTH = 2048;

/** Parses and checks the URL's form; 400 naming `param` otherwise. Does not resolve DNS (see assertResolvable). */
export function parseTargetUrl(input: string, policy: TargetPolicy, param = 'url'): URL {
  if (input.length > MAX_URL_LENGTH) throw invalidParam(param, `is too long (at most ${MAX_URL_LENGTH} characters)`);
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw invalidParam(param, 'is not a valid URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalidParam(param, 'must be an https URL');
  if (url.protocol === 'http:' && !policy.allowHttp) {
    throw invalidParam(param, 'must be an https URL (http needs MARKETLENS_WEBHOOK_ALLOW_HTTP=true)');
  }
  if (url.username || url.password) throw invalidParam(param, 'must not contain user information');
  const host = bareHost(url);
  if (!policy.allowPrivate && isIP(host) !== 0 && isBlockedAddress(host)) {
    throw invalidParam(param, `${host} is a loopback, private, link-local or reserved address`);
  }
  return url;
}

/** Resolves the URL's host and refuses it when any address is refused (creation-time check). */
export async function assertResolvable(url: URL, policy: TargetPolicy, param = 'url'): Promise<void> {
  if (policy.allowPrivate) return;
  const host = bareHost(url);
  if (isIP(host) !== 0) return; // checked in parseTargetUrl
  let addresses: LookupAddress[];
  try {
    addresses = await new Promise((resolve, reject) =>
      dnsLookup(host, { all: true }, (err, all) => (err ? reject(err) : resolve(all))),
    );
  } catch {
    throw invalidParam(param, `host ${host} does not resolve`);
  }
  const bad = addresses.find((a) => isBlockedAddress(a.address));
  if (bad)
    throw invalidParam(
      param,
      `host ${host} resolves to ${bad.address}, a loopback, private, link-local or reserved address`,
    );
}

export class BlockedTargetError extends Error {
  override name = 'BlockedTargetError';
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http(s).request that refuses blocked addresses, so the address checked is the address connected to.
 * Node calls it with `all: true` when it races address families (autoSelectFamily), else expects one address.
 */
export function guardedLookup(policy: TargetPolicy) {
  return (hostname: string, options: { family?: number | string; all?: boolean }, callback: LookupCallback): void => {
    dnsLookup(hostname, { family: Number(options.family ?? 0), all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      const bad = policy.allowPrivate ? undefined : addresses.find((a) => isBlockedAddress(a.address));
      if (bad)
        return callback(new BlockedTargetError(`${hostname} resolves to the refused address ${bad.address}`), '');
      if (addresses.length === 0)
        return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/** The URL's host without IPv6 brackets. */
export function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}
