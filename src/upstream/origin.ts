/**
 * MARKETLENS_<MP>_ORIGIN replaces scheme, host and port of every upstream URL of a marketplace (tests, mirrors).
 * The real URL is kept for the SSRF check, logs and HAR; only the socket goes to the override.
 */
export function toWireUrl(realUrl: URL, originOverride: string | undefined): URL {
  if (originOverride === undefined) return realUrl;
  const o = new URL(originOverride);
  const wire = new URL(realUrl.href);
  wire.protocol = o.protocol;
  wire.hostname = o.hostname;
  wire.port = o.port;
  return wire;
}

/** A Location header from the wire back onto the real host it stands for (relative ones resolve as usual). */
export function toRealUrl(location: string, realBase: URL, wireBase: URL, originOverride: string | undefined): URL {
  const resolved = new URL(location, wireBase);
  if (originOverride !== undefined && resolved.origin === wireBase.origin) {
    const real = new URL(resolved.href);
    real.protocol = realBase.protocol;
    real.hostname = realBase.hostname;
    real.port = realBase.port;
    return real;
  }
  return resolved;
}
