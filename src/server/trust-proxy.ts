/**
 * MARKETLENS_TRUST_PROXY as one function for Fastify (`req.ip`, `req.protocol`, `req.host`) and for the cached-hit
 * path in front of it, so the access log names the same client on both paths. Off, X-Forwarded-* are ignored: a
 * client reaching the port directly could otherwise claim any address.
 */
import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import type { Config } from '../config.js';

/** proxy-addr's question: is the address at this hop (0 = the socket's peer) a proxy we trust? */
export type TrustProxyFn = (address: string, hop: number) => boolean;

export function trustProxyFn(setting: Config['trustProxy']): TrustProxyFn | undefined {
  if (setting === false) return undefined;
  if (setting === true) return () => true;
  // A hop count: the nearest N addresses (the socket's peer first) are proxies. Fastify's own number option trusts
  // no peer at all (it cannot check one), so the count goes in as this function.
  if (typeof setting === 'number') return (_address, hop) => hop < setting;
  return proxyAddr.compile(setting);
}

/** The client's address: the first untrusted one, walking back from the socket's peer through X-Forwarded-For. */
export function clientAddress(req: IncomingMessage, trust: TrustProxyFn | undefined): string | undefined {
  return trust ? proxyAddr(req, trust) : req.socket.remoteAddress;
}
