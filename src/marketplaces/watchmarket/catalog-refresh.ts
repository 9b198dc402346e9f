/**
 * Rebuilds the finder catalog from Chrono24's own page markup (used by scripts/refresh-watchmarket-catalog.ts).
 * Chrono24 has no filter-group API (notes §4), but its pages name codes in three places:
 * - quick-filter pills: `a.js-quick-filter-pill` whose URL adds one filter parameter to the page's own ones;
 * - SEO links: `--mod981` (model), `-cm4` (case material), `-dc702` (dial colour), with the label as link text;
 * - the brand select of `/search/index.htm?dosearch=true`: `select[name=manufacturerIds] option`.
 * Found codes are merged into the shipped catalog: new codes are added, known ones keep their curated labels, and
 * nothing is dropped (a page shows only the filters relevant to its results).
 */
import { load } from 'cheerio/slim';
import { catalogGroupSchema, type CatalogGroup } from './schema.js';

export interface FoundCode {
  /** Chrono24 URL parameter (= catalog group id). */
  group: string;
  code: string;
  label: string;
}

/** Parameters with free values (prices, years, sizes): never catalog codes. */
const NOT_CODES = new Set(['priceFrom', 'priceTo', 'year', 'caseDiameter', 'query', 'showpage', 'pageSize', 'sortorder', 'dosearch', 'currencyId']);

const SEO_CODES: Array<{ re: RegExp; group: string }> = [
  { re: /--mod(\d+)\.htm$/, group: 'models' },
  { re: /-cm(\d+)\.htm$/, group: 'caseMaterials' },
  { re: /-dc(\d+)\.htm$/, group: 'dialColor' },
];

const clean = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** "Dial: Black" → "Black" (pills prefix some labels with their group name). */
function pillLabel(label: string): string {
  const m = label.match(/^[^:]{2,30}:\s*(.+)$/);
  return m ? m[1]! : label;
}

/**
 * Removes the brand-and-model words every label of one link list starts with ("Rolex Submariner Black/Blue" →
 * "Black/Blue"). Only a prefix of two words or more is such a context: "Submariner Date" and "Submariner (No Date)"
 * are model names that merely share a word.
 */
function stripCommonPrefix(labels: string[]): string[] {
  if (labels.length < 2) return labels;
  const words = labels.map((l) => l.split(' '));
  let n = 0;
  while (words.every((w) => w.length > n + 1 && w[n] === words[0]![n])) n++;
  return n < 2 ? labels : words.map((w) => w.slice(n).join(' '));
}

/**
 * Every filter code a Chrono24 page names, with its label.
 * @example extractFilterCodes(html).filter((c) => c.group === 'dialColor') // [{ group: 'dialColor', code: '702', label: 'Black' }, …]
 */
export function extractFilterCodes(html: string): FoundCode[] {
  const $ = load(html);
  const found: FoundCode[] = [];

  // Pills: the parameters every pill carries are the page's own; the one a pill adds is its filter.
  const pills = $('a.js-quick-filter-pill[href]')
    .toArray()
    .map((a) => ({ params: new URL($(a).attr('href')!, 'https://www.chrono24.com').searchParams, label: clean($(a).text()) }));
  const names = pills.map((p) => new Set(p.params.keys()));
  const common = new Set([...(names[0] ?? [])].filter((k) => names.every((s) => s.has(k))));
  for (const pill of pills) {
    const own = [...new Set(pill.params.keys())].filter((k) => !common.has(k) && !NOT_CODES.has(k));
    if (own.length !== 1) continue;
    const values = pill.params.getAll(own[0]!);
    // Pills with several values are groups (e.g. "Europe" = 43 countries), not one code.
    if (values.length !== 1 || pill.label === '') continue;
    found.push({ group: own[0]!, code: values[0]!, label: pillLabel(pill.label) });
  }

  // SEO link lists: one list per <nav>, so a shared prefix ("Rolex Submariner …") can be stripped per list.
  $('nav').each((_, nav) => {
    const hits: Array<{ group: string; code: string; label: string }> = [];
    $(nav)
      .find('a[href]')
      .each((_, a) => {
        const href = $(a).attr('href')!.split('?')[0]!;
        if ($(a).attr('href')!.includes('?')) return;
        const label = clean($(a).text());
        for (const { re, group } of SEO_CODES) {
          const m = href.match(re);
          if (m && label !== '' && !/^\d+$/.test(label)) hits.push({ group, code: m[1]!, label });
        }
      });
    const labels = stripCommonPrefix(hits.map((h) => h.label));
    hits.forEach((h, i) => found.push({ ...h, label: labels[i]! }));
  });

  $('select[name="manufacturerIds"] option[value]').each((_, o) => {
    const code = $(o).attr('value')!.trim();
    const label = clean($(o).text());
    if (/^\d+$/.test(code) && label !== '') found.push({ group: 'manufacturerIds', code, label });
  });
  return found;
}

/**
 * Adds found codes to the catalog (groups it does not know are reported, not invented). Returns the new catalog and
 * what was added.
 * @example mergeFoundCodes(FINDER_CATALOG, extractFilterCodes(html)).added
 */
export function mergeFoundCodes(
  catalog: readonly CatalogGroup[],
  found: readonly FoundCode[],
): { catalog: CatalogGroup[]; added: FoundCode[]; unknownGroups: string[] } {
  const next = catalog.map((g) => ({ ...g, values: g.values.map((v) => ({ ...v })) }));
  const added: FoundCode[] = [];
  const unknown = new Set<string>();
  for (const f of found) {
    const group = next.find((g) => g.id === f.group);
    if (!group) {
      unknown.add(f.group);
      continue;
    }
    if (group.values.some((v) => v.code === f.code)) continue;
    group.values.push({ label: f.label, code: f.code });
    added.push(f);
  }
  return { catalog: next.map((g) => catalogGroupSchema.parse(g)), added, unknownGroups: [...unknown] };
}

/** The text of finder-catalog-data.ts for a catalog. */
export function renderCatalogModule(catalog: readonly CatalogGroup[]): string {
  return `/**
 * The shipped Chrono24 filter catalog: every filter group and code marketlens knows (spec §2.1; notes
 * ../shared/upstreams/chrono24.md §2 and §4: quick-filter pills and SEO links of the 2026 capture, the code tables
 * public scrapers keep). \`id\` is Chrono24's URL parameter, \`param\` the watchmarket search parameter.
 *
 * Refreshed by \`npx tsx scripts/refresh-watchmarket-catalog.ts\` (merges codes found on the live pages; never drops).
 */
import type { CatalogGroup } from './schema.js';

export const FINDER_CATALOG: CatalogGroup[] = ${JSON.stringify(catalog, null, 2)};
`;
}
