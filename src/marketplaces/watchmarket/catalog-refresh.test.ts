import { describe, expect, it } from 'vitest';
import { readCapture, sharedAvailable } from '../../../test/support/shared.js';
import { GENERATED_MARKER, extractFilterCodes, mergeFoundCodes, renderCatalogFile } from './catalog-refresh.js';
import { FINDER_CATALOG, FINDER_CATALOG_FILE } from './finder-catalog-data.js';
import type { CatalogGroup } from './schema.js';

const B = 'chrono24/search-2026_rolex-submariner_excerpt-B_offset130000-178000_quickfilters-count-sorter-cards1-3.html';
const C = 'chrono24/search-2026_rolex-submariner_excerpt-C_offset604000-636000_cards59-60-pagination-pagesize.html';
const ADVANCED = 'chrono24/advanced-search-2026_no-query_manufacturer-select.html';

describe.skipIf(!sharedAvailable)('extractFilterCodes on the 2026 capture', () => {
  it('quick-filter pills: one code per pill, group prefixes removed, multi-value and free-value pills skipped', () => {
    const found = extractFilterCodes(readCapture(B));
    const by = (group: string) => found.filter((f) => f.group === group).map((f) => [f.code, f.label]);
    expect(by('dialColor')).toEqual([
      ['702', 'Black'],
      ['710', 'Blue'],
      ['716', 'Green'],
    ]);
    expect(by('caseMaterials')).toEqual([
      ['4', 'Steel'],
      ['9', 'Gold/Steel'],
      ['3', 'Yellow gold'],
    ]);
    expect(by('models')).toEqual([
      ['3023', 'Datejust 31'],
      ['4', 'GMT-Master II'],
      ['981', 'Submariner Date'],
    ]);
    // The page is Rolex's: its pills' shared manufacturerIds=221 ties the models to the brand.
    expect(found.filter((f) => f.group === 'models').map((f) => f.manufacturer)).toEqual(['221', '221', '221']);
    expect(by('usedOrNew')).toEqual([
      ['used', 'Used'],
      ['new', 'New/Unworn'],
    ]);
    expect(by('stockInfo')).toEqual([['InStock', 'Item is in stock']]);
    expect(by('claspMaterial')).toEqual([
      ['1102', 'Steel'],
      ['1105', 'Gold/Steel'],
      ['1108', 'Yellow gold'],
    ]);
    // "Europe" (43 countries), decades of years, price bounds and case diameters are not codes.
    for (const g of ['countryIds', 'year', 'priceTo', 'priceFrom', 'caseDiameter', 'manufacturerIds', 'currencyId'])
      expect(by(g), g).toEqual([]);
  });

  it('SEO links: model, case material and dial colour codes with the shared "Rolex Submariner" prefix removed', () => {
    const found = extractFilterCodes(readCapture(C));
    const by = (group: string) => found.filter((f) => f.group === group).map((f) => [f.code, f.label]);
    expect(by('dialColor')).toEqual([
      ['702', 'Black'],
      ['710', 'Blue'],
      ['720', 'Red'],
      ['701', 'White'],
    ]);
    expect(by('caseMaterials')).toEqual([
      ['6', 'Aluminum'],
      ['10', 'Silver'],
      ['4', 'Steel'],
      ['8', 'White gold'],
      ['3', 'Yellow gold'],
    ]);
    expect(by('models')).toEqual([
      ['2460', 'Submariner (No Date)'],
      ['981', 'Submariner Date'],
    ]);
  });

  it('the shipped catalog already holds every code the captures name, with the same labels for the brands', () => {
    const found = [
      ...extractFilterCodes(readCapture(ADVANCED)),
      ...extractFilterCodes(readCapture(B)),
      ...extractFilterCodes(readCapture(C)),
    ];
    expect(found.length).toBeGreaterThan(1000);
    expect(mergeFoundCodes(FINDER_CATALOG, found).added).toEqual([]);
    const brands = new Map(
      FINDER_CATALOG.find((g) => g.id === 'manufacturerIds')!.values.map((v) => [v.code, v.label]),
    );
    for (const f of found.filter((x) => x.group === 'manufacturerIds'))
      expect(brands.get(f.code), f.code).toBe(f.label);
  });
});

describe.skipIf(!sharedAvailable)('extractFilterCodes on the 2026 advanced-search page', () => {
  const found = sharedAvailable ? extractFilterCodes(readCapture(ADVANCED)) : [];
  const codes = (group: string) => new Map(found.filter((f) => f.group === group).map((f) => [f.code, f.label]));

  it('every brand of the manufacturer select: 545 distinct ids with their exact labels', () => {
    const brands = codes('manufacturerIds');
    expect(brands.size).toBe(545);
    expect(brands.get('221')).toBe('Rolex');
    expect(brands.get('18')).toBe('Audemars Piguet');
    expect(brands.get('187')).toBe('Omega');
    expect(brands.get('194')).toBe('Patek Philippe');
    expect(brands.get('1')).toBe('A. Lange & Söhne');
    // The "---" divider between the top brands and the alphabetical list is not a brand.
    expect(found.some((f) => f.label.startsWith('---') || f.code === '---')).toBe(false);
  });

  it('the other selects and checkboxes: categories, materials, countries, gender, movement, scope of delivery', () => {
    expect([...codes('watchCategories')]).toEqual([
      ['301', 'Wristwatch'],
      ['302', 'Pocket watch'],
      ['303', 'Other watch/clock'],
    ]);
    expect(codes('caseMaterials').size).toBe(19);
    expect(codes('braceletMaterial').size).toBe(26);
    expect([...codes('gender')]).toEqual([
      ['1401', "Men's watch/Unisex"],
      ['1402', "Women's watch"],
    ]);
    expect(codes('countryIds').get('DE')).toBe('Germany');
    expect(codes('movementTypes').get('2')).toBe('Manual winding');
    expect(codes('specials').get('104')).toBe('Watch with original papers');
    expect(codes('usedOrNew').get('used')).toBe('Pre-owned');
    // Request parameters of the form are not filter codes.
    for (const g of ['maxAgeInDays', 'sortorder', 'appearance', 'watchTypes']) expect(codes(g).size, g).toBe(0);
  });
});

describe('refresh merge and rendering', () => {
  const html = `<html><body><form><select name="manufacturerIds"><option value="">All brands</option>
    <option value="221">Rolex</option><option value="9999"> New Brand </option></select></form>
    <nav aria-label="Dial"><ul><li><a href="/omega/speedmaster-teal--mod63-dc799.htm">Omega Speedmaster Teal</a></li>
    <li><a href="/omega/speedmaster-black--mod63-dc702.htm">Omega Speedmaster Black</a></li></ul></nav></body></html>`;

  it('adds new codes, keeps known labels, drops nothing, and reports groups it does not know', () => {
    const catalog: CatalogGroup[] = [
      {
        id: 'manufacturerIds',
        param: 'manufacturer',
        label: 'Brand',
        inputType: 'Checkbox',
        searchable: true,
        values: [
          { label: 'Rolex', code: '221' },
          { label: 'Tudor', code: '600' },
        ],
      },
      {
        id: 'dialColor',
        param: 'dial_color',
        label: 'Dial color',
        inputType: 'IllustrationCheckbox',
        searchable: false,
        values: [{ label: 'Black', code: '702' }],
      },
    ];
    const {
      catalog: next,
      added,
      unknownGroups,
    } = mergeFoundCodes(catalog, [...extractFilterCodes(html), { group: 'fancyNew', code: '1', label: 'x' }]);
    expect(added).toEqual([
      { group: 'dialColor', code: '799', label: 'Teal' },
      { group: 'manufacturerIds', code: '9999', label: 'New Brand' },
    ]);
    expect(next[0]!.values).toEqual([
      { label: 'Rolex', code: '221' },
      { label: 'Tudor', code: '600' },
      { label: 'New Brand', code: '9999' },
    ]);
    expect(next[1]!.values).toEqual([
      { label: 'Black', code: '702' },
      { label: 'Teal', code: '799' },
    ]);
    expect(unknownGroups).toEqual(['fancyNew']);
    expect(catalog[0]!.values).toHaveLength(2);
  });

  it('SEO model links name their brand by slug: the merge stores the brand id when the catalog knows the brand', () => {
    const catalog: CatalogGroup[] = [
      {
        id: 'manufacturerIds',
        param: 'manufacturer',
        label: 'Brand',
        inputType: 'Checkbox',
        searchable: true,
        values: [{ label: 'A. Lange & Söhne', code: '1' }],
      },
      { id: 'models', param: 'model', label: 'Model', inputType: 'Checkbox', searchable: true, values: [] },
    ];
    const page = `<nav><a href="/alangesoehne/lange-1--mod5.htm">A. Lange &amp; Söhne Lange 1</a>
      <a href="/alangesoehne/saxonia--mod6.htm">A. Lange &amp; Söhne Saxonia</a></nav>
      <nav><a href="/nobrand/x--mod7.htm">Other X</a></nav>`;
    const { catalog: next } = mergeFoundCodes(catalog, extractFilterCodes(page));
    expect(next[1]!.values).toEqual([
      { label: 'Lange 1', code: '5', manufacturer: '1' },
      { label: 'Saxonia', code: '6', manufacturer: '1' },
      { label: 'Other X', code: '7' },
    ]);
  });

  it('renders the generated JSON the project ships (byte for byte), with its "generated" marker', async () => {
    const { readFileSync } = await import('node:fs');
    const shipped = readFileSync(new URL('./finder-catalog-data.json', import.meta.url), 'utf8');
    expect(renderCatalogFile(FINDER_CATALOG, FINDER_CATALOG_FILE.sources)).toBe(shipped);
    expect(JSON.parse(shipped).generated).toBe(GENERATED_MARKER);
    expect(GENERATED_MARKER).toMatch(/^generated — run npm run refresh:watchmarket-catalog/);
  });
});
