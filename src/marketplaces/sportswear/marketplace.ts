/** Nike (sportswear): Next.js product pages; Akamai is selective and Chrome headers pass (notes §6). */
import { defineMarketplace, hasNextData, isJsonBody } from '../descriptor.js';

export const sportswearMarketplace = defineMarketplace({
  id: 'sportswear',
  alias: 'nike',
  site: 'Nike',
  hosts: ['www.nike.com', 'nike.com', 'api.nike.com'],
  envName: 'SPORTSWEAR',
  home: 'https://www.nike.com/',
  // Nike's reports say Chrome headers alone pass: no warm-up needed.
  warmUpHosts: [],
  browserByDefault: false,
  blockMarkers: [],
  looksReal: (res, req) => (req.expect === 'json' ? isJsonBody(res) : hasNextData(res)),
});
