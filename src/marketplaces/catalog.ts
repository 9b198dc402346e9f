/**
 * The built-in marketplaces: one descriptor each (`<mp>/marketplace.ts`, see README.md here), listed once below.
 * Every outgoing request is checked against a descriptor's `hosts` (SSRF guard), so adding a host is a security
 * decision. The `Marketplace` union is this list's ids; the upstream layer takes descriptors as data.
 */
import type { MarketplaceDescriptor } from './descriptor.js';
import { electronicsMarketplace } from './electronics/marketplace.js';
import { resaleAMarketplace } from './resale-a/marketplace.js';
import { resaleBMarketplace } from './resale-b/marketplace.js';
import { sportswearMarketplace } from './sportswear/marketplace.js';
import { watchmarketMarketplace } from './watchmarket/marketplace.js';

export const MARKETPLACE_DESCRIPTORS = [
  watchmarketMarketplace,
  resaleAMarketplace,
  resaleBMarketplace,
  sportswearMarketplace,
  electronicsMarketplace,
] as const;

export type Marketplace = (typeof MARKETPLACE_DESCRIPTORS)[number]['id'];
export const MARKETPLACES: readonly Marketplace[] = MARKETPLACE_DESCRIPTORS.map((d) => d.id);

/** The built-in descriptors by id. */
export const MARKETPLACE_INFO = Object.fromEntries(MARKETPLACE_DESCRIPTORS.map((d) => [d.id, d])) as Record<
  Marketplace,
  MarketplaceDescriptor
>;

export { CHRONO24_DOMAINS } from './watchmarket/marketplace.js';
export type { MarketplaceDescriptor } from './descriptor.js';

/**
 * The descriptor of a built-in marketplace, or the descriptor itself (operations of a marketplace registered at
 * runtime pass theirs).
 */
export function descriptorOf(marketplace: string | MarketplaceDescriptor): MarketplaceDescriptor {
  if (typeof marketplace !== 'string') return marketplace;
  const d = (MARKETPLACE_INFO as Record<string, MarketplaceDescriptor | undefined>)[marketplace];
  if (!d) throw new Error(`unknown marketplace ${marketplace}`);
  return d;
}

/** True when `host` (no port) is one the marketplace owns. */
export function isMarketplaceHost(marketplace: string | MarketplaceDescriptor, host: string): boolean {
  return descriptorOf(marketplace).hosts.includes(host.toLowerCase());
}
