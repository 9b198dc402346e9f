import { describe, expect, it } from 'vitest';
import { MarketlensError } from '../../errors.js';
import { parseProductQuery, searchText } from './query-input.js';

function errorOf(fn: () => unknown): MarketlensError | undefined {
  try {
    fn();
  } catch (e) {
    return e as MarketlensError;
  }
  return undefined;
}

describe('parseProductQuery', () => {
  it('takes a slug as is', () => {
    expect(parseProductQuery('nike-dunk-low-retro-white-black-2021')).toEqual({
      kind: 'slug',
      slug: 'nike-dunk-low-retro-white-black-2021',
    });
  });

  it('takes stockx.com URLs with or without scheme, www, locale prefix and query string', () => {
    for (const url of [
      'https://stockx.com/nike-x-stussy-bucket-hat-black',
      'stockx.com/nike-x-stussy-bucket-hat-black',
      'https://www.stockx.com/nike-x-stussy-bucket-hat-black?size=7',
      'https://stockx.com/fr-fr/nike-x-stussy-bucket-hat-black',
      'http://stockx.com/nike-x-stussy-bucket-hat-black/',
    ]) {
      expect(parseProductQuery(url)).toEqual({ kind: 'slug', slug: 'nike-x-stussy-bucket-hat-black' });
    }
  });

  it('takes a product UUID (GetMarketData accepts it)', () => {
    expect(parseProductQuery('EF4B2B9B-AB4D-41AF-B56A-C4937E8F7A1E')).toEqual({
      kind: 'uuid',
      uuid: 'ef4b2b9b-ab4d-41af-b56a-c4937e8f7a1e',
    });
  });

  it('rejects other hosts, non-product URLs and malformed slugs with 400 naming query', () => {
    for (const bad of [
      'https://www.goat.com/sneakers/air-jordan-1',
      'goat.com',
      'https://stockx.com.evil.example/x',
      'https://stockx.com/',
      'https://stockx.com/search/sneakers',
      'https://stockx.com:8443/x',
      'has spaces in it',
      '../etc/passwd',
    ]) {
      const e = errorOf(() => parseProductQuery(bad));
      expect(e, bad).toBeInstanceOf(MarketlensError);
      expect(e!.code).toBe('invalid_parameter');
      expect(e!.errors?.[0]?.param).toBe('query');
    }
  });
});

describe('searchText', () => {
  it('keeps free text, reads a stockx URL as its slug, rejects other hosts', () => {
    expect(searchText(undefined)).toBe('');
    expect(searchText(' DD1391-100 ')).toBe('DD1391-100');
    expect(searchText('https://stockx.com/adidas-yeezy-slide-slate-grey')).toBe('adidas-yeezy-slide-slate-grey');
    expect(errorOf(() => searchText('https://www.goat.com/x'))?.code).toBe('invalid_parameter');
  });
});
