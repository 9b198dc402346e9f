/**
 * Refreshes the watchmarket finder catalog (src/marketplaces/watchmarket/finder-catalog-data.json) from Chrono24
 * pages: live ones, or pages saved from a browser (Chrono24 sits behind Cloudflare, so a user whose network is blocked
 * can save `https://www.chrono24.com/search/index.htm?dosearch=true` and refresh from the file).
 *
 *   npm run refresh:watchmarket-catalog -- [--dry-run] [--out FILE] [--base FILE] [--from FILE…] [URL…]
 *
 * `--base` names the catalog file to merge into (default: the shipped one), `--out` where to write (default: the
 * shipped file).
 *
 * `--from` takes every following argument up to the next option as a saved page. Without files or URLs the default
 * live pages are fetched with the service's own HTTP client, so MARKETLENS_* proxy/unblocker settings apply. New codes
 * are added; known codes keep their labels; nothing is removed. The parsing is `extractFilterCodes` +
 * `mergeFoundCodes` (catalog-refresh.ts), tested on the captures.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import { isMarketlensError } from '../src/errors.js';
import {
  extractFilterCodes,
  mergeFoundCodes,
  renderCatalogFile,
  type CatalogFile,
  type FoundCode,
} from '../src/marketplaces/watchmarket/catalog-refresh.js';
import { FINDER_CATALOG_FILE } from '../src/marketplaces/watchmarket/finder-catalog-data.js';
import { createHttpClient } from '../src/upstream/create-client.js';
import { judgeAnswer } from '../src/upstream/block-detection.js';
import { watchmarketMarketplace } from '../src/marketplaces/watchmarket/marketplace.js';

const DEFAULT_PAGES = [
  'https://www.chrono24.com/search/index.htm?dosearch=true',
  'https://www.chrono24.com/search/index.htm?dosearch=true&query=Rolex+Submariner&currencyId=USD',
  'https://www.chrono24.com/search/index.htm?dosearch=true&query=Omega+Speedmaster&currencyId=USD',
  'https://www.chrono24.com/search/index.htm?dosearch=true&query=Seiko&currencyId=USD',
];

export interface RefreshArgs {
  dryRun: boolean;
  out: string | undefined;
  base: string | undefined;
  files: string[];
  urls: string[];
}

export function parseArgs(args: string[]): RefreshArgs {
  const r: RefreshArgs = { dryRun: false, out: undefined, base: undefined, files: [], urls: [] };
  let inFrom = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--dry-run') r.dryRun = true;
    else if (a === '--out') r.out = args[++i];
    else if (a === '--base') r.base = args[++i];
    else if (a === '--from') inFrom = true;
    else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else if (inFrom) r.files.push(a);
    else r.urls.push(a);
    if (a.startsWith('--') && a !== '--from') inFrom = false;
  }
  return r;
}

/** A saved page that is a bot challenge instead of Chrono24's (saved before the check cleared): the client's judge says. */
const looksLikeChallenge = (html: string): boolean =>
  judgeAnswer({ status: 200, headers: {}, body: html }, { expect: 'html' }, watchmarketMarketplace) !== undefined;

async function fetchLive(urls: string[], found: FoundCode[]): Promise<boolean> {
  const config = loadConfig();
  const http = createHttpClient(config);
  try {
    for (const url of urls) {
      // A Cloudflare challenge, whatever its status, is judged by the client: it throws upstream_blocked.
      const res = await http
        .request(
          { url, expect: 'html', label: 'catalog_refresh', headers: { 'accept-language': 'en-US,en;q=0.9' } },
          { marketplace: 'watchmarket', signal: AbortSignal.timeout(config.deadlineMs) },
        )
        .catch((e: unknown) => {
          if (isMarketlensError(e) && e.code === 'upstream_blocked') {
            throw new Error(
              `${url}: ${e.message} (Cloudflare challenge: configure a proxy, unblocker or the browser tier, or save the page from a browser and use --from)`,
            );
          }
          throw e;
        });
      if (res.status !== 200) {
        console.error(`${url}: HTTP ${res.status}`);
        return false;
      }
      const codes = extractFilterCodes(res.body);
      console.error(`${url}: ${codes.length} codes`);
      found.push(...codes);
    }
  } finally {
    await http.close?.();
  }
  return true;
}

async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  const found: FoundCode[] = [];
  for (const file of args.files) {
    const html = readFileSync(file, 'utf8');
    if (looksLikeChallenge(html)) {
      console.error(`${file}: a Cloudflare challenge page, not Chrono24's; save the page again once it shows`);
      return 1;
    }
    const codes = extractFilterCodes(html);
    console.error(`${file}: ${codes.length} codes`);
    found.push(...codes);
  }
  const urls = args.urls.length > 0 || args.files.length > 0 ? args.urls : DEFAULT_PAGES;
  if (urls.length > 0 && !(await fetchLive(urls, found))) return 1;

  const base = args.base ? (JSON.parse(readFileSync(args.base, 'utf8')) as CatalogFile) : FINDER_CATALOG_FILE;
  const { catalog, added, unknownGroups } = mergeFoundCodes(base.groups, found);
  for (const a of added) console.log(`+ ${a.group} ${a.code} ${a.label}`);
  if (unknownGroups.length > 0)
    console.error(
      `Parameters without a catalog group (add one by hand if they are filters): ${unknownGroups.join(', ')}`,
    );
  // Saved pages are named by file name (their folder is the user's), live ones by URL.
  const sources = [...new Set([...base.sources, ...args.files.map((f) => basename(f)), ...urls])];
  const text = renderCatalogFile(catalog, sources);
  const target =
    args.out ?? fileURLToPath(new URL('../src/marketplaces/watchmarket/finder-catalog-data.json', import.meta.url));
  if (args.dryRun) {
    console.error(`Dry run: ${added.length} new codes, nothing written.`);
  } else {
    writeFileSync(target, text);
    console.error(
      `Wrote ${target} (${added.length} new codes; ${catalog.reduce((n, g) => n + g.values.length, 0)} codes in all).`,
    );
  }
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      console.error(e instanceof Error ? e.message : e);
      process.exitCode = 1;
    },
  );
}
