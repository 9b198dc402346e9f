import { MarketlensError } from '../errors.js';
import type { UpstreamResponse } from './http-client.js';

/**
 * What an operation does with an upstream status: 2xx passes; 404/410 → not_found; anything else → upstream_error.
 * @example expectOk(res, 'resale-b', 'product template 1341930')
 */
export function expectOk(res: UpstreamResponse, marketplace: string, what: string): void {
  if (res.status >= 200 && res.status < 300) return;
  if (res.status === 404 || res.status === 410) {
    throw new MarketlensError('not_found', `${marketplace} has no ${what}`, { upstreamStatus: res.status });
  }
  throw new MarketlensError('upstream_error', `${marketplace} answered HTTP ${res.status} for ${what}`, {
    upstreamStatus: res.status,
  });
}
