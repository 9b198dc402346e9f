/**
 * The identity the browser shows: the same User-Agent and client hints as the fast client's pinned Chrome profile.
 * Bot managers bind clearance cookies to the User-Agent (Cloudflare's `cf_clearance` is only honoured with the UA
 * that earned it), so a cookie the browser earns is only worth handing to the fast client if both say the same.
 */
import { ACCEPT_LANGUAGE, PINNED_BROWSER } from '../profiles.js';

export interface BrowserIdentity {
  userAgent: string;
  /** `Accept-Language` without q-values (Chromium adds them). */
  acceptLanguage: string;
  /** navigator.platform */
  platform: string;
  /** CDP Emulation.UserAgentMetadata: what sec-ch-ua* headers and navigator.userAgentData say. */
  userAgentMetadata: {
    brands: { brand: string; version: string }[];
    fullVersion: string;
    platform: string;
    platformVersion: string;
    architecture: string;
    model: string;
    mobile: boolean;
  };
}

/**
 * The identity of impit's pinned profile (`chrome151` → Chrome 151 on Windows, as impit sends it).
 * @example pinnedIdentity().userAgent // 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) … Chrome/151.0.0.0 Safari/537.36'
 */
export function pinnedIdentity(profile: string = PINNED_BROWSER): BrowserIdentity {
  const major = /^chrome(\d+)$/.exec(profile)?.[1] ?? '151';
  return {
    userAgent: `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36`,
    acceptLanguage: ACCEPT_LANGUAGE.split(',')
      .map((l) => l.split(';')[0]!)
      .join(','),
    platform: 'Win32',
    userAgentMetadata: {
      brands: [
        { brand: 'Not=A?Brand', version: '99' },
        { brand: 'Google Chrome', version: major },
        { brand: 'Chromium', version: major },
      ],
      fullVersion: `${major}.0.0.0`,
      platform: 'Windows',
      platformVersion: '10.0.0',
      architecture: 'x86',
      model: '',
      mobile: false,
    },
  };
}
