/**
 * Spec 4.1: the filter finder. Chrono24 has no known filter-group endpoint (its filter panel loads on demand, notes
 * §4), so the groups come from the catalog the project ships (finder-catalog-data.json, generated from saved or live
 * pages by `npm run refresh:watchmarket-catalog`). No network: `fetch` hands the catalog to `parse`.
 */
import { z } from 'zod';
import { invalidParam } from '../../errors.js';
import { complete, defineOperation } from '../../operations/types.js';
import { FINDER_CATALOG } from './finder-catalog-data.js';
import { finderRecordSchema, type CatalogGroup, type FilterGroup } from './schema.js';

/** Both forms of each shipped group, built once: `query=a` matches most groups, 545 brands included. */
const FORMS = new WeakMap<CatalogGroup, FilterGroup[]>();

/**
 * Both spec §2.1 forms of one catalog group: camelCase id (Chrono24's parameter) with `input_type`, then snake_case id
 * (the search parameter) with `filterGroupId` and `inputType`. Values carry the code under the search parameter name.
 * @example toFilterGroups(group)[1].id // 'dial_color'
 */
export function toFilterGroups(g: CatalogGroup): FilterGroup[] {
  const values = g.values.map((v) => ({ label: v.label, [g.param]: v.code }));
  return [
    { id: g.id, input_type: g.inputType, label: g.label, searchable: g.searchable, values },
    { id: g.param, inputType: g.inputType, filterGroupId: g.param, label: g.label, searchable: g.searchable, values },
  ];
}

/**
 * Case-insensitive "name contains" over each group's label and both ids; every match comes back in both forms.
 * @example matchFilterGroups(FINDER_CATALOG, 'dial').map((g) => g.id) // ['dialColor', 'dial_color', 'dialNumbers', 'dial_numbers']
 */
export function matchFilterGroups(catalog: readonly CatalogGroup[], query: string): FilterGroup[] {
  const q = query.trim().toLowerCase();
  if (q === '') throw invalidParam('query', 'must not be empty');
  return catalog
    .filter((g) => [g.label, g.id, g.param].some((name) => name.toLowerCase().includes(q)))
    .flatMap((g) => {
      let forms = FORMS.get(g);
      if (!forms) FORMS.set(g, (forms = toFilterGroups(g)));
      return forms;
    });
}

export const watchmarketFinder = defineOperation({
  name: 'watchmarket.finder',
  marketplace: 'watchmarket',
  path: '/api/v2/finder/watchmarket-search',
  summary: 'Look up search filter groups and their codes by name (Chrono24)',
  description:
    'Returns every filter group whose label or id contains `query` (case-insensitive), each twice: once with the ' +
    "camelCase id (Chrono24's own URL parameter, with `input_type`) and once with the snake_case id (the " +
    'watchmarket search parameter that takes the codes, with `filterGroupId` and `inputType`). Each value holds its ' +
    'code as a string under the search parameter name, e.g. `{ "label": "Black", "dial_color": "702" }`.\n\n' +
    '`query` comes from a JSON body `{"query": "dial"}` (GET with a body, as the spec says) or from the query string. ' +
    'The groups come from the catalog marketlens ships (Chrono24 publishes no filter API); no upstream request is made.',
  params: z
    .object({ query: z.string().trim().min(1, 'must not be empty').describe('Part of a filter name, e.g. `dial`') })
    .strict(),
  // Spec 4.1 sends `query` as a JSON body on GET; the query string works too.
  bodyParams: ['query'],
  record: finderRecordSchema,
  cacheClass: 'finder',
  example: {
    params: { query: 'dial numbers' },
    response: toFilterGroups(FINDER_CATALOG.find((g) => g.id === 'dialNumbers')!),
  },
  async fetch() {
    return FINDER_CATALOG;
  },
  parse(catalog: readonly CatalogGroup[], p) {
    return complete(matchFilterGroups(catalog, p.query ?? ''));
  },
  // Matching is case-insensitive: `Dial` and `dial` are one question.
  canonicalParams: (p) => ({ query: p.query.trim().toLowerCase() }),
  identify: (_record, p) => ({ id: p.query.trim().toLowerCase(), country: null, currency: null, locale: null }),
  bodiesFromFiles(files) {
    // `marketlens parse watchmarket.finder catalog.json query=…`: a generated catalog file (`{generated, sources,
    // groups}`, as the refresh writes it) or a bare array of groups.
    if (files.length === 0) return FINDER_CATALOG;
    return files.flatMap((f) => {
      const json = JSON.parse(f.text) as CatalogGroup[] | { groups: CatalogGroup[] };
      return Array.isArray(json) ? json : json.groups;
    });
  },
});
