/**
 * Refreshes the watchmarket finder catalog (src/marketplaces/watchmarket/finder-catalog-data.ts) from Chrono24's live
 * pages: the brand select of the search page and the quick-filter pills and SEO links of a few result pages.
 *
 *   npx tsx scripts/refresh-watchmarket-catalog.ts [--dry-run] [URL…]
 *
 * Uses the service's own HTTP client, so MARKETLENS_* proxy/unblocker settings apply (Chrono24 sits behind
 * Cloudflare). New codes are added; known codes keep their labels; nothing is removed. The parsing is
 * `extractFilterCodes` + `mergeFoundCodes` (catalog-refresh.ts), tested on the captures.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import { isMarketlensError } from '../src/errors.js';
import { extractFilterCodes, mergeFoundCodes, renderCatalogModule, type FoundCode } from '../src/marketplaces/watchmarket/catalog-refresh.js';
import { FINDER_CATALOG } from '../src/marketplaces/watchmarket/finder-catalog-data.js';
import { createHttpClient } from '../src/upstream/create-client.js';

const DEFAULT_PAGES = [
  'https://www.chrono24.com/search/index.htm?dosearch=true',
  'https://www.chrono24.com/search/index.htm?dosearch=true&query=Rolex+Submariner&currencyId=USD',
  'https://www.chrono24.com/search/index.htm?dosearch=true&query=Omega+Speedmaster&currencyId=USD',
  'https://www.chrono24.com/search/index.htm?dosearch=true&query=Seiko&currencyId=USD',
];

async function main(args: string[]): Promise<number> {
  const dryRun = args.includes('--dry-run');
  const urls = args.filter((a) => !a.startsWith('--'));
  const config = loadConfig();
  const http = createHttpClient(config);
  const found: FoundCode[] = [];
  try {
    for (const url of urls.length > 0 ? urls : DEFAULT_PAGES) {
      // A Cloudflare challenge, whatever its status, is judged by the client: it throws upstream_blocked.
      const res = await http
        .request(
          { url, expect: 'html', label: 'catalog_refresh', headers: { 'accept-language': 'en-US,en;q=0.9' } },
          { marketplace: 'watchmarket', signal: AbortSignal.timeout(config.deadlineMs) },
        )
        .catch((e: unknown) => {
          if (isMarketlensError(e) && e.code === 'upstream_blocked') {
            throw new Error(`${url}: ${e.message} (Cloudflare challenge: configure a proxy, unblocker or the browser tier)`);
          }
          throw e;
        });
      if (res.status !== 200) {
        console.error(`${url}: HTTP ${res.status}`);
        return 1;
      }
      const codes = extractFilterCodes(res.body);
      console.error(`${url}: ${codes.length} codes`);
      found.push(...codes);
    }
  } finally {
    await http.close?.();
  }
  const { catalog, added, unknownGroups } = mergeFoundCodes(FINDER_CATALOG, found);
  for (const a of added) console.log(`+ ${a.group} ${a.code} ${a.label}`);
  if (unknownGroups.length > 0) console.error(`Parameters without a catalog group (add one by hand if they are filters): ${unknownGroups.join(', ')}`);
  if (!dryRun && added.length > 0) {
    const target = fileURLToPath(new URL('../src/marketplaces/watchmarket/finder-catalog-data.ts', import.meta.url));
    writeFileSync(target, renderCatalogModule(catalog));
    console.error(`Wrote ${added.length} new codes to ${target}`);
  } else if (added.length === 0) {
    console.error('The catalog already has every code found.');
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exitCode = 1;
  },
);
