import { describe, expect, it } from 'vitest';
import { readCapture, sharedAvailable } from '../../../test/support/shared.js';
import { extractFilterCodes, mergeFoundCodes, renderCatalogModule } from './catalog-refresh.js';
import { FINDER_CATALOG } from './finder-catalog-data.js';
import type { CatalogGroup } from './schema.js';

const B = 'chrono24/search-2026_rolex-submariner_excerpt-B_offset130000-178000_quickfilters-count-sorter-cards1-3.html';
const C = 'chrono24/search-2026_rolex-submariner_excerpt-C_offset604000-636000_cards59-60-pagination-pagesize.html';

describe.skipIf(!sharedAvailable)('extractFilterCodes on the 2026 capture', () => {
  it('quick-filter pills: one code per pill, group prefixes removed, multi-value and free-value pills skipped', () => {
    const found = extractFilterCodes(readCapture(B));
    const by = (group: string) => found.filter((f) => f.group === group).map((f) => [f.code, f.label]);
    expect(by('dialColor')).toEqual([['702', 'Black'], ['710', 'Blue'], ['716', 'Green']]);
    expect(by('caseMaterials')).toEqual([['4', 'Steel'], ['9', 'Gold/Steel'], ['3', 'Yellow gold']]);
    expect(by('models')).toEqual([['3023', 'Datejust 31'], ['4', 'GMT-Master II'], ['981', 'Submariner Date']]);
    expect(by('usedOrNew')).toEqual([['used', 'Used'], ['new', 'New/Unworn']]);
    expect(by('stockInfo')).toEqual([['InStock', 'Item is in stock']]);
    expect(by('claspMaterial')).toEqual([['1102', 'Steel'], ['1105', 'Gold/Steel'], ['1108', 'Yellow gold']]);
    // "Europe" (43 countries), decades of years, price bounds and case diameters are not codes.
    for (const g of ['countryIds', 'year', 'priceTo', 'priceFrom', 'caseDiameter', 'manufacturerIds', 'currencyId']) expect(by(g), g).toEqual([]);
  });

  it('SEO links: model, case material and dial colour codes with the shared "Rolex Submariner" prefix removed', () => {
    const found = extractFilterCodes(readCapture(C));
    const by = (group: string) => found.filter((f) => f.group === group).map((f) => [f.code, f.label]);
    expect(by('dialColor')).toEqual([['702', 'Black'], ['710', 'Blue'], ['720', 'Red'], ['701', 'White']]);
    expect(by('caseMaterials')).toEqual([['6', 'Aluminum'], ['10', 'Silver'], ['4', 'Steel'], ['8', 'White gold'], ['3', 'Yellow gold']]);
    expect(by('models')).toEqual([['2460', 'Submariner (No Date)'], ['981', 'Submariner Date']]);
  });

  it('the shipped catalog already holds every code the captures name', () => {
    const found = [...extractFilterCodes(readCapture(B)), ...extractFilterCodes(readCapture(C))];
    expect(found.length).toBeGreaterThan(30);
    expect(mergeFoundCodes(FINDER_CATALOG, found).added).toEqual([]);
  });
});

describe('refresh merge and rendering', () => {
  const html = `<html><body><form><select name="manufacturerIds"><option value="">All brands</option>
    <option value="221">Rolex</option><option value="9999"> New Brand </option></select></form>
    <nav aria-label="Dial"><ul><li><a href="/omega/speedmaster-teal--mod63-dc799.htm">Omega Speedmaster Teal</a></li>
    <li><a href="/omega/speedmaster-black--mod63-dc702.htm">Omega Speedmaster Black</a></li></ul></nav></body></html>`;

  it('adds new codes, keeps known labels, drops nothing, and reports groups it does not know', () => {
    const catalog: CatalogGroup[] = [
      { id: 'manufacturerIds', param: 'manufacturer', label: 'Brand', inputType: 'Checkbox', searchable: true, values: [{ label: 'Rolex', code: '221' }, { label: 'Tudor', code: '600' }] },
      { id: 'dialColor', param: 'dial_color', label: 'Dial color', inputType: 'IllustrationCheckbox', searchable: false, values: [{ label: 'Black', code: '702' }] },
    ];
    const { catalog: next, added, unknownGroups } = mergeFoundCodes(catalog, [...extractFilterCodes(html), { group: 'fancyNew', code: '1', label: 'x' }]);
    expect(added).toEqual([
      { group: 'dialColor', code: '799', label: 'Teal' },
      { group: 'manufacturerIds', code: '9999', label: 'New Brand' },
    ]);
    expect(next[0]!.values).toEqual([{ label: 'Rolex', code: '221' }, { label: 'Tudor', code: '600' }, { label: 'New Brand', code: '9999' }]);
    expect(next[1]!.values).toEqual([{ label: 'Black', code: '702' }, { label: 'Teal', code: '799' }]);
    expect(unknownGroups).toEqual(['fancyNew']);
    expect(catalog[0]!.values).toHaveLength(2);
  });

  it('renders the catalog module the project ships (byte for byte for the current catalog)', async () => {
    const { readFileSync } = await import('node:fs');
    const shipped = readFileSync(new URL('./finder-catalog-data.ts', import.meta.url), 'utf8');
    expect(renderCatalogModule(FINDER_CATALOG)).toBe(shipped);
  });
});
