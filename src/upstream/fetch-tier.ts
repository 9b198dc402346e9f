/** The ways to reach a marketplace, cheapest first (README "Fetch tiers"). Below config and upstream, which both name them. */
export const FETCH_TIERS = ['direct', 'proxy', 'unblocker', 'browser'] as const;
export type FetchTier = (typeof FETCH_TIERS)[number];
