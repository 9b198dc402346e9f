/**
 * IPv6 addresses that carry an IPv4 address, and which one. A connection to such an address can end at that IPv4
 * address (the kernel's own mapping, a NAT64 gateway, a 6to4 or Teredo relay), so a guard must judge it by the IPv4
 * address, not by the IPv6 ranges it happens to sit in (which are public).
 */

/** The 16 bytes of an IPv6 literal (any spelling: `::`, a dotted IPv4 tail), or undefined when it is not one. */
export function ipv6Bytes(ip: string): Uint8Array | undefined {
  let text = ip;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    if ([a, b, c, d].some((n) => n > 255)) return undefined;
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (s: string | undefined) => (s ? s.split(':') : []);
  const head = groups(halves[0]);
  const tail = groups(halves[1]);
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  const bytes = new Uint8Array(16);
  for (const [i, g] of all.entries()) {
    if (!/^[0-9a-f]{1,4}$/i.test(g)) return undefined;
    const n = parseInt(g, 16);
    bytes[2 * i] = n >> 8;
    bytes[2 * i + 1] = n & 255;
  }
  return bytes;
}

const dottedAt = (b: Uint8Array, at: number, xor = 0): string => [0, 1, 2, 3].map((i) => b[at + i]! ^ xor).join('.');

const zero = (b: Uint8Array, from: number, to: number): boolean => b.subarray(from, to).every((x) => x === 0);

/** What an IPv6 address carries: no IPv4 address, the IPv4 addresses it reaches, or a layout that cannot be read. */
export type Embedded = { kind: 'none' } | { kind: 'ipv4'; addresses: string[] } | { kind: 'unknown' };

/**
 * The IPv4 addresses an IPv6 address carries:
 * - IPv4-mapped `::ffff:a.b.c.d` and IPv4-translated `::ffff:0:a.b.c.d` (RFC 2765), the last 32 bits;
 * - IPv4-compatible `::a.b.c.d` (deprecated, still routed by some stacks), the last 32 bits (`::` and `::1` read as
 *   0.0.0.0 and 0.0.0.1, both refused as "this network");
 * - NAT64 well-known prefix `64:ff9b::/96` (RFC 6052), the last 32 bits;
 * - NAT64 local-use prefix `64:ff9b:1::/48` (RFC 8215): the operator picks the prefix length (/48 to /96) and the
 *   IPv4 bits move with it, so only the /96 layout right under it (`64:ff9b:1::a.b.c.d`) can be read; any other
 *   address in it is `unknown`;
 * - 6to4 `2002::/16` (RFC 3056), bits 16–47;
 * - Teredo `2001::/32` (RFC 4380): the server, bits 32–63, and the client, the last 32 bits inverted.
 * @example embeddedIpv4('64:ff9b::7f00:1') // { kind: 'ipv4', addresses: ['127.0.0.1'] }
 */
export function embeddedIpv4(ip: string): Embedded {
  const b = ipv6Bytes(ip);
  if (!b) return { kind: 'none' };
  const last32 = (): Embedded => ({ kind: 'ipv4', addresses: [dottedAt(b, 12)] });
  if (zero(b, 0, 10) && b[10] === 0xff && b[11] === 0xff) return last32();
  if (zero(b, 0, 8) && b[8] === 0xff && b[9] === 0xff && zero(b, 10, 12)) return last32();
  if (zero(b, 0, 12)) return last32();
  const at = (...prefix: number[]) => prefix.every((x, i) => b[i] === x);
  if (at(0x00, 0x64, 0xff, 0x9b) && zero(b, 4, 12)) return last32();
  if (at(0x00, 0x64, 0xff, 0x9b, 0x00, 0x01)) return zero(b, 6, 12) ? last32() : { kind: 'unknown' };
  if (at(0x20, 0x02)) return { kind: 'ipv4', addresses: [dottedAt(b, 2)] };
  if (at(0x20, 0x01, 0x00, 0x00)) return { kind: 'ipv4', addresses: [dottedAt(b, 4), dottedAt(b, 12, 0xff)] };
  return { kind: 'none' };
}
