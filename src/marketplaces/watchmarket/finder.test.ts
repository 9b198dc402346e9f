import { describe, expect, it } from 'vitest';
import { FINDER_CATALOG } from './finder-catalog-data.js';
import { matchFilterGroups, toFilterGroups, watchmarketFinder } from './finder.js';
import { catalogGroupSchema, filterGroupCamelSchema, filterGroupSnakeSchema, finderRecordSchema } from './schema.js';

/** Spec §2.1, dial colour codes (label = code), in the spec's order. */
const SPEC_DIAL_COLORS: Array<[string, string]> = [
  ['Black', '702'],
  ['Blue', '710'],
  ['Bordeaux', '711'],
  ['Bronze', '712'],
  ['Brown', '723'],
  ['Champagne', '709'],
  ['Gold', '714'],
  ['Gold (solid)', '705'],
  ['Green', '716'],
  ['Grey', '715'],
  ['Meteorite', '725'],
  ['Mother of pearl', '707'],
  ['Orange', '719'],
  ['Pink', '722'],
  ['Purple', '721'],
  ['Red', '720'],
  ['Silver', '708'],
  ['Silver (solid)', '706'],
  ['Skeletonized', '726'],
  ['Skeletonized', '704'],
  ['Turquoise', '724'],
  ['White', '701'],
  ['Yellow', '713'],
  ['No details', '0'],
];

describe('finder', () => {
  it('query=dial: dial colour and dial numbers, each in both forms', () => {
    const groups = matchFilterGroups(FINDER_CATALOG, 'dial');
    expect(groups.map((g) => g.id)).toEqual(['dialColor', 'dial_color', 'dialNumbers', 'dial_numbers']);
    finderRecordSchema.parse(groups);
    const [camel, snake] = groups as unknown as [Record<string, unknown>, Record<string, unknown>];
    expect(filterGroupCamelSchema.parse(camel)).toMatchObject({
      id: 'dialColor',
      input_type: 'IllustrationCheckbox',
      label: 'Dial color',
      searchable: false,
    });
    expect(filterGroupSnakeSchema.parse(snake)).toMatchObject({
      id: 'dial_color',
      filterGroupId: 'dial_color',
      inputType: 'IllustrationCheckbox',
    });
    expect('input_type' in snake).toBe(false);
    expect('filterGroupId' in camel).toBe(false);
  });

  it('dial colour values are the spec codes, as strings, under the key dial_color, in both forms', () => {
    const [camel, snake] = matchFilterGroups(FINDER_CATALOG, 'dial color');
    for (const g of [camel!, snake!]) {
      expect(g.values.map((v) => [v.label, v.dial_color])).toEqual(SPEC_DIAL_COLORS);
      for (const v of g.values) expect(Object.keys(v)).toEqual(['label', 'dial_color']);
    }
  });

  it('dial numbers: 801–805 and No details 0, under dial_numbers', () => {
    const [, snake] = matchFilterGroups(FINDER_CATALOG, 'dialnumbers');
    expect(snake!.values).toEqual([
      { label: 'Arabic numerals', dial_numbers: '801' },
      { label: 'Roman numerals', dial_numbers: '802' },
      { label: 'No numerals', dial_numbers: '803' },
      { label: 'Gemstones', dial_numbers: '804' },
      { label: 'Lines', dial_numbers: '805' },
      { label: 'No details', dial_numbers: '0' },
    ]);
  });

  it('matches case-insensitively on the label and both ids', () => {
    expect(matchFilterGroups(FINDER_CATALOG, 'DIAL').length).toBe(4);
    expect(matchFilterGroups(FINDER_CATALOG, 'bracelet_c').map((g) => g.id)).toEqual([
      'braceletColor',
      'bracelet_color',
    ]);
    expect(matchFilterGroups(FINDER_CATALOG, 'Seller location').map((g) => g.id)).toEqual(['countryIds', 'country']);
    expect(matchFilterGroups(FINDER_CATALOG, 'no such filter')).toEqual([]);
  });

  it('an empty query is a 400 on query', () => {
    expect(() => matchFilterGroups(FINDER_CATALOG, '  ')).toThrow(/^query:/);
    expect(watchmarketFinder.params.safeParse({ query: '' }).success).toBe(false);
  });

  it("the shipped catalog is well formed: unique ids and params, unique codes per group except the spec's two Skeletonized", () => {
    for (const g of FINDER_CATALOG) catalogGroupSchema.parse(g);
    expect(new Set(FINDER_CATALOG.map((g) => g.id)).size).toBe(FINDER_CATALOG.length);
    expect(new Set(FINDER_CATALOG.map((g) => g.param)).size).toBe(FINDER_CATALOG.length);
    for (const g of FINDER_CATALOG) expect(new Set(g.values.map((v) => v.code)).size, g.id).toBe(g.values.length);
    finderRecordSchema.parse(FINDER_CATALOG.flatMap(toFilterGroups));
  });

  it('fetch needs no network: it returns the catalog', async () => {
    const bodies = await watchmarketFinder.fetch({} as never, { query: 'dial' });
    expect(watchmarketFinder.parse(bodies, { query: 'dial' }).record).toHaveLength(4);
  });
});

describe('finder on a saved catalog file (marketlens parse)', () => {
  it('reads the generated file shape {generated, sources, groups} as well as a bare array of groups', async () => {
    const { readFileSync } = await import('node:fs');
    const text = readFileSync(new URL('./finder-catalog-data.json', import.meta.url), 'utf8');
    const fromFile = watchmarketFinder.bodiesFromFiles([{ path: 'finder-catalog-data.json', text }], {
      query: 'manufacturer',
    });
    const groups = watchmarketFinder.parse(fromFile, { query: 'manufacturer' }).record;
    expect(groups[0]!.values.length).toBeGreaterThanOrEqual(545);
    const bare = watchmarketFinder.bodiesFromFiles([{ path: 'groups.json', text: JSON.stringify(FINDER_CATALOG) }], {
      query: 'dial',
    });
    expect(watchmarketFinder.parse(bare, { query: 'dial' }).record).toHaveLength(4);
  });
});
