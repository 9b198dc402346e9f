/**
 * Which addresses a webhook may reach. Loopback, private (RFC 1918, ULA), carrier-grade NAT, link-local (which holds
 * the 169.254.169.254 cloud metadata service), multicast and reserved ranges are refused, so a subscription cannot
 * make this service probe its own network. An IPv6 address that carries an IPv4 one (mapped, translated, compatible,
 * NAT64, 6to4, Teredo: embedded-ipv4.ts) is judged by the IPv4 address it reaches, in any spelling (dotted or hex,
 * `::ffff:7f00:1`). (Not as ::ffff:0:0/96-style rules: BlockList also matches IPv4 addresses against mapped IPv6
 * rules, so such a rule would refuse every IPv4 address; and 64:ff9b::808:808 reaches a public 8.8.8.8.)
 */
import { BlockList, isIP } from 'node:net';
import { embeddedIpv4 } from './embedded-ipv4.js';

const blocked = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, bits, 'ipv6');
}

/** True when `address` (an IP literal) is one a webhook must not reach. Non-IP input counts as blocked. */
export function isBlockedAddress(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(ip);
  if (family === 4) return blocked.check(ip, 'ipv4');
  if (family === 6) {
    const embedded = embeddedIpv4(ip);
    if (embedded.kind === 'unknown') return true;
    if (embedded.kind === 'ipv4') return embedded.addresses.some((a) => blocked.check(a, 'ipv4'));
    return blocked.check(ip, 'ipv6');
  }
  return true;
}
