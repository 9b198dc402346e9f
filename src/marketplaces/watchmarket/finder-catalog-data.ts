/**
 * The shipped Chrono24 filter catalog, loaded from the generated finder-catalog-data.json (every group and code the
 * saved or live Chrono24 pages name: spec §2.1; notes ../shared/upstreams/chrono24.md §2 and §4). `id` is Chrono24's
 * URL parameter, `param` the watchmarket search parameter. The JSON is data, not code: it is rewritten by
 * `npm run refresh:watchmarket-catalog -- --from FILE…` (catalog-refresh.ts) and checked here once at start-up, so a
 * hand edit that breaks its shape fails loudly instead of serving a wrong catalog.
 */
import { z } from 'zod';
import data from './finder-catalog-data.json' with { type: 'json' };
import { catalogGroupSchema, type CatalogGroup } from './schema.js';

const catalogFileSchema = z
  .object({ generated: z.string(), sources: z.array(z.string()), groups: z.array(catalogGroupSchema) })
  .strict();

/** The catalog file as shipped (marker, sources, groups). */
export const FINDER_CATALOG_FILE = catalogFileSchema.parse(data);

export const FINDER_CATALOG: CatalogGroup[] = FINDER_CATALOG_FILE.groups;
