/**
 * Each marketplace's size labels read into one size system, and the join rules of the size table: men's, women's and
 * kids' sizes never share a row; a GTIN joins what a label cannot.
 */
import { describe, expect, it } from 'vitest';
import { stockxSize } from '../marketplaces/resale-a/sku-source.js';
import type { Variant } from '../marketplaces/resale-a/schema.js';
import { goatSize } from '../marketplaces/resale-b/sku-source.js';
import type { ResaleBProduct } from '../marketplaces/resale-b/schema.js';
import { nikeSize } from '../marketplaces/sportswear/sku-source.js';
import { sizeTable } from './size-table.js';
import type { SizeEntry } from './source.js';
import type { ProductOffer } from './types.js';

const variant = (base: string, sizes: [string, string][]): Variant => ({
  id: 'v',
  sizes: sizes.map(([size, type]) => ({ size, type })),
  gtins: [],
  market: null,
  traits: { size: base },
});
const goatProduct = (single_gender: string | null, size_unit = 'us') =>
  ({ single_gender, gender: single_gender ? [single_gender] : [], size_unit }) as Pick<
    ResaleBProduct,
    'single_gender' | 'gender' | 'size_unit'
  > as ResaleBProduct;
const nike = (label: string, localized_label: string | null = null) => ({
  label,
  localized_label,
  gtins: null,
  status: null,
  merch_sku_id: null,
  sort_sequence: null,
  localized_label_prefix: null,
});

describe('size systems', () => {
  it('StockX: US M for men’s and unisex products, US W for women’s, Y/C sizes kids’, the rest other', () => {
    const both: [string, string][] = [
      ['US M 10', 'us m'],
      ['US W 11.5', 'us w'],
    ];
    expect(stockxSize(variant('10', both), 'men')).toEqual({ size: '10', system: 'us_men' });
    expect(stockxSize(variant('10', both), 'unisex')).toEqual({ size: '10', system: 'us_men' });
    expect(stockxSize(variant('11.5', both), 'women')).toEqual({ size: '11.5', system: 'us_women' });
    expect(stockxSize(variant('7Y', [['US 7Y', 'us']]), 'child')).toEqual({ size: '7Y', system: 'us_kids' });
    expect(stockxSize(variant('XS/S', [['US XS/S', 'us']]), 'unisex')).toEqual({ size: 'XS/S', system: 'other' });
  });

  it('GOAT: a W/Y/C suffix says the system, else the product’s single gender; not US units → other', () => {
    expect(goatSize('11.5W', goatProduct('men'))).toEqual({ size: '11.5', system: 'us_women' });
    expect(goatSize('7Y', goatProduct('men'))).toEqual({ size: '7Y', system: 'us_kids' });
    expect(goatSize('10.0', goatProduct('men'))).toEqual({ size: '10', system: 'us_men' });
    expect(goatSize('8', goatProduct('women'))).toEqual({ size: '8', system: 'us_women' });
    expect(goatSize('5', goatProduct('youth'))).toEqual({ size: '5', system: 'us_kids' });
    expect(goatSize('42', goatProduct('men', 'eu'))).toEqual({ size: '42', system: 'other' });
  });

  it('Nike: W/M prefixes, the localized label or the group; bare numbers with no hint (the feed) are other', () => {
    expect(nikeSize(nike('W 7', 'W 7 / M 5.5'), "Women's")).toEqual({ size: '7', system: 'us_women' });
    expect(nikeSize(nike('10', 'M 10 / W 11.5'), null)).toEqual({ size: '10', system: 'us_men' });
    expect(nikeSize(nike('8'), "Men's")).toEqual({ size: '8', system: 'us_men' });
    expect(nikeSize(nike('6'), "Women's")).toEqual({ size: '6', system: 'us_women' });
    expect(nikeSize(nike('5'), "Big Kids'")).toEqual({ size: '5', system: 'us_kids' });
    expect(nikeSize(nike('10.5C'), null)).toEqual({ size: '10.5C', system: 'us_kids' });
    expect(nikeSize(nike('10'), null)).toEqual({ size: '10', system: 'other' });
    expect(nikeSize(nike('42', 'EU 42'), null)).toEqual({ size: 'EU 42', system: 'other' });
  });
});

describe('sizeTable', () => {
  const offer = (marketplace: ProductOffer['marketplace'], amount: number, currency = 'USD'): ProductOffer => ({
    marketplace,
    kind: marketplace === 'resale-a' ? 'lowest_ask' : 'lowest_price',
    condition: 'new',
    amount,
    currency,
    in_stock: true,
    url: null,
  });
  const entry = (size: string, system: SizeEntry['system'], gtins: string[], offers: ProductOffer[]): SizeEntry => ({
    size,
    system,
    gtins,
    offers,
  });

  it("joins by GTIN (an `other` entry takes the row's system), by label within one system, never across systems", () => {
    const rows = sizeTable(
      [
        { marketplace: 'resale-a', entries: [entry('10', 'us_men', ['00000000000010'], [offer('resale-a', 150)])] },
        {
          marketplace: 'resale-b',
          entries: [
            entry('10', 'us_men', [], [offer('resale-b', 140)]),
            entry('10', 'us_women', [], [offer('resale-b', 90)]),
          ],
        },
        { marketplace: 'sportswear', entries: [entry('10', 'other', ['00000000000010'], [offer('sportswear', 115)])] },
      ],
      'USD',
    );
    expect(rows.map((r) => [r.size_system, r.size, r.matched_by, r.offers.map((o) => o.marketplace)])).toEqual([
      ['us_men', '10', 'gtin', ['resale-a', 'resale-b', 'sportswear']],
      ['us_women', '10', null, ['resale-b']],
    ]);
    expect(rows[0]!.best_buy).toMatchObject({ marketplace: 'sportswear', amount: 115 });
  });

  it('best buy and sell compare only offers in the requested currency', () => {
    const [row] = sizeTable(
      [
        { marketplace: 'resale-a', entries: [entry('9', 'us_men', [], [offer('resale-a', 200, 'EUR')])] },
        { marketplace: 'resale-b', entries: [entry('9', 'us_men', [], [offer('resale-b', 100, 'USD')])] },
      ],
      'EUR',
    );
    expect(row!.best_buy).toMatchObject({ marketplace: 'resale-a', amount: 200, currency: 'EUR' });
  });
});
