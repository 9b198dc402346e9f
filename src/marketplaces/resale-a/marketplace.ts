/** StockX (resale-a): web GraphQL and Next.js pages behind PerimeterX (notes §6). */
import { defineMarketplace, hasNextData, isJsonBody } from '../descriptor.js';

export const resaleAMarketplace = defineMarketplace({
  id: 'resale-a',
  alias: 'stockx',
  site: 'StockX',
  hosts: ['stockx.com', 'www.stockx.com'],
  envName: 'RESALE_A',
  home: 'https://stockx.com/',
  warmUpHosts: ['stockx.com'],
  // PerimeterX's "press and hold" only a real browser passes.
  browserByDefault: true,
  // 403 from StockX is its bot wall (PerimeterX JSON or HTML), never an answer the operations read.
  blockStatuses: [403],
  blockMarkers: [
    // Not the PX app id alone: every normal StockX page embeds it.
    { name: 'PerimeterX block', test: /px-captcha|Access to this page has been denied/i, decisive: true },
  ],
  // Pages carry __NEXT_DATA__ (or the older react-query script); GraphQL answers JSON. A PerimeterX block JSON
  // (`{"appId":"PX…","blockScript":…}`) is JSON too, but its decisive generic marker is judged first.
  looksReal: (res, req) =>
    req.expect === 'json' ? isJsonBody(res) : hasNextData(res) || /data-name=["']?query/.test(res.body),
});
