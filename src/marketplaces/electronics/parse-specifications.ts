/**
 * Specification groups (old `shop-specifications` → `specifications.categories`, new `productBySkuId.specificationGroups`)
 * and the old block's display settings. Pure.
 */
import { snakeKey, snakeKeysDeep } from '../../util/snake-case.js';
import { arr, bool, obj, str, strArr } from './pick.js';
import type { SpecificationGroup, SpecificationsSettings } from './schema.js';

/** Spec values are always strings ("false", "14.2 inches"): booleans and numbers upstream are written as text. */
function text(v: unknown): string | null {
  if (typeof v === 'boolean') return String(v);
  return str(v);
}

/**
 * Old categories `{displayName, specifications[{displayName, value, definition, id}]}` or new groups
 * `{name, specifications[{displayName, value, definition}]}` (no id: null) → spec groups; null when the page has none.
 * @example buildSpecificationGroups(undefined, { specificationGroups: [...] })
 */
export function buildSpecificationGroups(
  specificationsApp: Record<string, unknown> | undefined,
  product: Record<string, unknown> | undefined,
): SpecificationGroup[] | null {
  const groups =
    arr(obj(specificationsApp?.specifications)?.categories) ??
    arr(specificationsApp?.categories) ??
    arr(product?.specificationGroups);
  if (!groups) return null;
  return groups
    .map((g) => obj(g) ?? {})
    .map((g) => ({
      display_name: str(g.displayName) ?? str(g.name),
      specifications: (arr(g.specifications) ?? [])
        .map((s) => obj(s) ?? {})
        .map((s) => ({
          id: str(s.id),
          value: text(s.value),
          definition: str(s.definition),
          display_name: str(s.displayName),
        }))
        // A specification without a name or a value says nothing.
        .filter((s): s is SpecificationGroup['specifications'][number] => s.value !== null && s.display_name !== null),
    }));
}

const BOOLEAN_SETTINGS = [
  'isBot',
  'isAllSpecs',
  'disableIcons',
  'isSmallView',
  'hideAccordion',
  'isDrawerOpen',
  'useActionLog',
  'showBorderTop',
  'hideBorderBottom',
  'showFeedbackLink',
  'useTabLinkClass',
  'hasHighlightsData',
  'isApplianceCategory',
  'isHighlightsCategory',
  'enableDeferredHydration',
  'enableProductHighlights',
  'showScrollToAllSpecifications',
] as const;
const STRING_SETTINGS = [
  'skuId',
  'context',
  'instanceId',
  'scrollToViewSelectorLV',
  'seeAllSpecificationsDataTrack',
] as const;
const OTHER_SETTINGS = ['measurementPhotoData', 'measurementPhotoCategories', 'feedBackLinkCategories'] as const;

/**
 * Display settings of the old specifications block (its root props), or null when the page carries none (pages
 * since 2025 have no such block).
 */
export function buildSpecificationsSettings(
  specificationsApp: Record<string, unknown> | undefined,
): SpecificationsSettings | null {
  const root = specificationsApp;
  if (!root) return null;
  const known = [...BOOLEAN_SETTINGS, ...STRING_SETTINGS, ...OTHER_SETTINGS];
  if (!known.some((k) => root[k] !== undefined)) return null;
  const out: Record<string, unknown> = {};
  for (const k of BOOLEAN_SETTINGS) out[snakeKey(k)] = bool(root[k]);
  for (const k of STRING_SETTINGS) out[snakeKey(k)] = str(root[k]);
  const photoData = obj(root.measurementPhotoData);
  out.measurement_photo_data = photoData ? snakeKeysDeep(photoData) : null;
  const categories = obj(root.measurementPhotoCategories);
  out.measurement_photo_categories = categories
    ? Object.fromEntries(
        Object.entries(categories).map(([name, c]) => {
          const v = obj(c) ?? {};
          const always = bool(v.alwaysShowAboveText);
          return [
            name, // a category name, not a key to convert
            {
              measurement_photo_location: str(v.measurementPhotoLocation),
              ...(always === null ? {} : { always_show_above_text: always }),
            },
          ];
        }),
      )
    : null;
  out.feed_back_link_categories = strArr(root.feedBackLinkCategories);
  return out as SpecificationsSettings;
}
