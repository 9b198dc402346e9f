/** GOAT (resale-b): web API and Next.js product pages behind Cloudflare (notes § Anti-bot). */
import { defineMarketplace, hasNextData, isJsonBody } from '../descriptor.js';

export const resaleBMarketplace = defineMarketplace({
  id: 'resale-b',
  alias: 'goat',
  site: 'GOAT',
  // ac.cnstrc.com: Constructor.io, GOAT's former search service, the search's fallback (resale-b.search).
  hosts: ['www.goat.com', 'goat.com', 'ac.cnstrc.com'],
  envName: 'RESALE_B',
  home: 'https://www.goat.com/',
  // Notes: "warm-up GET https://www.goat.com/ first and again after any 403".
  warmUpHosts: ['www.goat.com'],
  csrfCookie: 'csrf',
  browserByDefault: false,
  blockMarkers: [],
  looksReal: (res, req) => (req.expect === 'json' ? isJsonBody(res) : hasNextData(res)),
});
