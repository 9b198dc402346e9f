/**
 * Rebuilds the finder catalog from Chrono24's own page markup (used by scripts/refresh-watchmarket-catalog.ts).
 * Chrono24 has no filter-group API (notes §4), but its pages name codes in three places:
 * - quick-filter pills: `a.js-quick-filter-pill` whose URL adds one filter parameter to the page's own ones;
 * - SEO links: `--mod981` (model), `-cm4` (case material), `-dc702` (dial colour), with the label as link text;
 * - the form of the advanced-search page `/search/index.htm?dosearch=true`: every `select[name] option` (brands,
 *   watch categories, case and bracelet materials, countries, gender) and every labelled checkbox (movement, scope of
 *   delivery, new/used).
 * Found codes are merged into the shipped catalog: new codes are added, known ones keep their curated labels, and
 * nothing is dropped (a page shows only the filters relevant to its results).
 */
import { load } from 'cheerio/slim';
import { catalogGroupSchema, type CatalogGroup } from './schema.js';

/** Marker field of the generated catalog file: it is data the refresh writes, not code to edit. */
export const GENERATED_MARKER =
  'generated — run npm run refresh:watchmarket-catalog -- --from FILE… (or with live URLs); do not edit by hand';

/** The generated catalog file (src/marketplaces/watchmarket/finder-catalog-data.json). */
export interface CatalogFile {
  generated: string;
  /** The pages (file names or URLs) the last refresh read. */
  sources: string[];
  groups: CatalogGroup[];
}

export interface FoundCode {
  /** Chrono24 URL parameter (= catalog group id). */
  group: string;
  code: string;
  label: string;
  /** For models: the brand they belong to, as a manufacturer id or the brand slug of the link path (`rolex`). */
  manufacturer?: string;
}

/** Parameters with free values (prices, years, sizes): never catalog codes. */
const NOT_CODES = new Set([
  'priceFrom',
  'priceTo',
  'year',
  'caseDiameter',
  'query',
  'showpage',
  'pageSize',
  'sortorder',
  'dosearch',
  'currencyId',
  // Search-form controls that are request parameters, not filters (maxAgeInDays is the search's max_age_in_days).
  'maxAgeInDays',
  'appearance',
  'searchexplain',
  'watchTypes',
]);

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
    .map((a) => ({
      params: new URL($(a).attr('href')!, 'https://www.chrono24.com').searchParams,
      label: clean($(a).text()),
    }));
  const names = pills.map((p) => new Set(p.params.keys()));
  const common = new Set([...(names[0] ?? [])].filter((k) => names.every((s) => s.has(k))));
  for (const pill of pills) {
    const own = [...new Set(pill.params.keys())].filter((k) => !common.has(k) && !NOT_CODES.has(k));
    if (own.length !== 1) continue;
    const values = pill.params.getAll(own[0]!);
    // Pills with several values are groups (e.g. "Europe" = 43 countries), not one code.
    if (values.length !== 1 || pill.label === '') continue;
    const brand = own[0] === 'models' && common.has('manufacturerIds') ? pill.params.getAll('manufacturerIds') : [];
    found.push({
      group: own[0]!,
      code: values[0]!,
      label: pillLabel(pill.label),
      ...(brand.length === 1 ? { manufacturer: brand[0]! } : {}),
    });
  }

  // SEO link lists: one list per <nav>, so a shared prefix ("Rolex Submariner …") can be stripped per list.
  $('nav').each((_, nav) => {
    const hits: FoundCode[] = [];
    $(nav)
      .find('a[href]')
      .each((_, a) => {
        const href = $(a).attr('href')!.split('?')[0]!;
        if ($(a).attr('href')!.includes('?')) return;
        const label = clean($(a).text());
        for (const { re, group } of SEO_CODES) {
          const m = href.match(re);
          if (!m || label === '' || /^\d+$/.test(label)) continue;
          // `/rolex/submariner-date--mod981.htm`: the first path segment is the brand's slug.
          const slug = group === 'models' ? href.match(/^(?:https?:\/\/[^/]+)?\/([a-z0-9-]+)\//)?.[1] : undefined;
          hits.push({ group, code: m[1]!, label, ...(slug ? { manufacturer: slug } : {}) });
        }
      });
    const labels = stripCommonPrefix(hits.map((h) => h.label));
    hits.forEach((h, i) => found.push({ ...h, label: labels[i]! }));
  });

  // Form selects (the advanced-search page lists every brand, category, material and country this way).
  $('select[name]').each((_, sel) => {
    const group = $(sel).attr('name')!;
    if (NOT_CODES.has(group)) return;
    $(sel)
      .find('option[value]')
      .each((_, o) => {
        const code = $(o).attr('value')!.trim();
        const label = clean($(o).text());
        // Placeholders ("---", "Please select") have an empty or dashed value.
        if (/^[A-Za-z0-9]+$/.test(code) && label !== '' && !/^-+$/.test(label)) found.push({ group, code, label });
      });
  });
  // Form checkboxes: the label is the text of the enclosing <label> (or the one pointing at the input's id).
  $('input[type="checkbox"][name][value], input[type="radio"][name][value]').each((_, i) => {
    const group = $(i).attr('name')!;
    const code = $(i).attr('value')!.trim();
    if (NOT_CODES.has(group) || !/^[A-Za-z0-9]+$/.test(code)) return;
    const id = $(i).attr('id');
    const label = clean((id ? $(`label[for="${id}"]`).first().text() : '') || $(i).closest('label').text());
    if (label !== '') found.push({ group, code, label });
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
    const manufacturer = f.manufacturer === undefined ? undefined : brandId(next, f.manufacturer);
    const known = group.values.find((v) => v.code === f.code);
    if (known) {
      // A known code keeps its label; learning its brand only adds what the catalog did not say.
      if (manufacturer !== undefined && known.manufacturer === undefined) known.manufacturer = manufacturer;
      continue;
    }
    group.values.push({ label: f.label, code: f.code, ...(manufacturer !== undefined ? { manufacturer } : {}) });
    added.push(f);
  }
  return { catalog: next.map((g) => catalogGroupSchema.parse(g)), added, unknownGroups: [...unknown] };
}

/** `ö` → `oe` as Chrono24's slugs write it (`/alangesoehne/`), then only letters and digits. */
function slugOf(label: string): string {
  return label
    .toLowerCase()
    .replace(/ä/g, 'ae')
    .replace(/ö/g, 'oe')
    .replace(/ü/g, 'ue')
    .replace(/ß/g, 'ss')
    .normalize('NFD')
    .replace(/[^a-z0-9]/g, '');
}

/** A manufacturer id given as id or link slug → the id the catalog knows, else undefined (never guessed). */
function brandId(catalog: readonly CatalogGroup[], ref: string): string | undefined {
  const brands = catalog.find((g) => g.id === 'manufacturerIds')?.values ?? [];
  if (/^\d+$/.test(ref)) return brands.some((b) => b.code === ref) ? ref : undefined;
  const slug = ref.replace(/[^a-z0-9]/g, '');
  const hits = brands.filter((b) => slugOf(b.label) === slug);
  return hits.length === 1 ? hits[0]!.code : undefined;
}

/**
 * The text of finder-catalog-data.json: the marker, the sources, then one line per value so a refresh diffs by code.
 * @example JSON.parse(renderCatalogFile(groups, ['saved.html'])).generated // GENERATED_MARKER
 */
export function renderCatalogFile(groups: readonly CatalogGroup[], sources: readonly string[]): string {
  const group = (g: CatalogGroup): string => {
    const { values, ...head } = g;
    const fields = Object.entries(head).map(([k, v]) => `      ${JSON.stringify(k)}: ${JSON.stringify(v)},`);
    const lines = values.map((v) => `        ${JSON.stringify(v)}`).join(',\n');
    return `    {\n${fields.join('\n')}\n      "values": [\n${lines}\n      ]\n    }`;
  };
  return (
    `{\n  "generated": ${JSON.stringify(GENERATED_MARKER)},\n  "sources": ${JSON.stringify(sources)},\n` +
    `  "groups": [\n${groups.map(group).join(',\n')}\n  ]\n}\n`
  );
}
