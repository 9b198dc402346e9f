import { describe, expect, it } from 'vitest';
import { MarketlensError } from '../../errors.js';
import { resolveProductTarget, styleColorOfUrl } from './product-url.js';
import { acceptLanguage, normaliseCountry } from './storefronts.js';

/** The 400 a call throws, as `{param, message}`. */
function rejection(fn: () => unknown): { code: string; param: string | undefined; message: string } {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(MarketlensError);
    const err = e as MarketlensError;
    return { code: err.code, param: err.errors?.[0]?.param, message: err.message };
  }
  throw new Error('expected a rejection');
}

describe('resolveProductTarget: product page URLs (notes §2.A, §6)', () => {
  it.each([
    // [input, country, language, page fetched]
    [
      'https://www.nike.com/t/dunk-low-retro-mens-shoes-76KnBL/DD1391-100',
      'US',
      null,
      'https://www.nike.com/t/dunk-low-retro-mens-shoes-76KnBL/DD1391-100',
    ],
    [
      'https://www.nike.com/fr/t/chaussure-dunk-low-retro-pour-XyZ123/DD1391-100',
      'FR',
      null,
      'https://www.nike.com/fr/t/chaussure-dunk-low-retro-pour-XyZ123/DD1391-100',
    ],
    [
      'https://www.nike.com/gb/t/air-force-1-07-mens-shoes-WrLlWX/CW2288-111',
      'GB',
      null,
      'https://www.nike.com/gb/t/air-force-1-07-mens-shoes-WrLlWX/CW2288-111',
    ],
    [
      'https://www.nike.com/cz/t/boty-shox-r4-wQWPrJH5/AR3565-103',
      'CZ',
      null,
      'https://www.nike.com/cz/t/boty-shox-r4-wQWPrJH5/AR3565-103',
    ],
    [
      'https://www.nike.com/ca/fr/t/chaussure-air-force-1-WrLlWX/CW2288-111',
      'CA',
      'fr',
      'https://www.nike.com/ca/fr/t/chaussure-air-force-1-WrLlWX/CW2288-111',
    ],
    [
      'https://www.nike.com/es/ca/t/sabatilles-WrLlWX/CW2288-111',
      'ES',
      'ca',
      'https://www.nike.com/es/ca/t/sabatilles-WrLlWX/CW2288-111',
    ],
    ['https://www.nike.com/kr/t/-/-/CW2288-111', 'KR', null, 'https://www.nike.com/kr/t/-/-/CW2288-111'],
    ['https://www.nike.com/t/-/DD1391-100', 'US', null, 'https://www.nike.com/t/-/DD1391-100'],
    // no scheme, no www, http, query string, fragment, trailing slash, lower-case code: all normalised
    [
      'nike.com/jp/t/x-AbCdEf/dd1391-100/?vst=dunk#reviews',
      'JP',
      null,
      'https://www.nike.com/jp/t/x-AbCdEf/DD1391-100',
    ],
    ['http://www.nike.com/DE/t/x-AbCdEf/DD1391-100', 'DE', null, 'https://www.nike.com/de/t/x-AbCdEf/DD1391-100'],
    ['www.nike.com/nl/t/x-AbCdEf/DD1391-100', 'NL', null, 'https://www.nike.com/nl/t/x-AbCdEf/DD1391-100'],
  ])('%s', (input, country, language, pageUrl) => {
    const t = resolveProductTarget(input);
    expect(t).toEqual({ styleColor: pageUrl.slice(-10), country, language, pageUrl });
  });

  it('keeps the slug case (it ends with the group key) and accepts a matching country', () => {
    const t = resolveProductTarget('https://www.nike.com/fr/t/a-B-cDeF12/DD1391-100', 'fr');
    expect(t.pageUrl).toBe('https://www.nike.com/fr/t/a-B-cDeF12/DD1391-100');
    expect(resolveProductTarget('https://www.nike.com/t/x-AbCdEf/DD1391-100', 'US').country).toBe('US');
  });
});

describe('resolveProductTarget: bare style-colour codes', () => {
  it('defaults to the US storefront', () => {
    expect(resolveProductTarget(' dd1391-100 ')).toEqual({
      styleColor: 'DD1391-100',
      country: 'US',
      language: null,
      pageUrl: 'https://www.nike.com/t/-/DD1391-100',
    });
  });

  it.each([
    ['FR', 'https://www.nike.com/fr/t/-/DD1391-100'],
    ['de', 'https://www.nike.com/de/t/-/DD1391-100'],
    ['UK', 'https://www.nike.com/gb/t/-/DD1391-100'],
    ['US', 'https://www.nike.com/t/-/DD1391-100'],
  ])('country %s → %s', (country, pageUrl) => {
    expect(resolveProductTarget('DD1391-100', country).pageUrl).toBe(pageUrl);
  });

  it('accepts the code forms seen upstream (5–8 characters, dash, 3)', () => {
    expect(resolveProductTarget('553558-092').styleColor).toBe('553558-092');
    expect(resolveProductTarget('SX5090-014').styleColor).toBe('SX5090-014');
  });
});

describe('resolveProductTarget: rejections name the parameter', () => {
  it.each([
    ['https://www.goat.com/sneakers/dunk-low-DD1391-100', /not a Nike host/],
    ['https://nike.com.evil.example/t/x/DD1391-100', /not a Nike host/],
    ['https://api.nike.com/t/x-AbCdEf/DD1391-100', /not a Nike product page URL/],
    ['https://www.nike.com/w/mens-shoes-nik1zy7ok', /not a Nike product page URL/],
    ['https://www.nike.com/t/dunk-low-retro-mens-shoes-76KnBL', /not a Nike product page URL/],
    ['https://www.nike.com/zz/t/x-AbCdEf/DD1391-100', /not a Nike storefront country/],
    ['DD1391', /style-colour code/],
    ['dunk low', /style-colour code/],
    ['ftp://www.nike.com/t/x/DD1391-100', /https/],
  ])('query %s', (query, message) => {
    const r = rejection(() => resolveProductTarget(query));
    expect(r).toMatchObject({ code: 'invalid_parameter', param: 'query' });
    expect(r.message).toMatch(message);
  });

  it.each(['XX', 'USA', '1', 'EU', ''])('country %j', (country) => {
    expect(rejection(() => resolveProductTarget('DD1391-100', country))).toMatchObject({
      code: 'invalid_parameter',
      param: 'country',
    });
  });

  it('a country that contradicts the URL', () => {
    const r = rejection(() => resolveProductTarget('https://www.nike.com/fr/t/x-AbCdEf/DD1391-100', 'DE'));
    expect(r).toMatchObject({ code: 'invalid_parameter', param: 'country' });
    expect(r.message).toMatch(/FR storefront/);
  });
});

describe('styleColorOfUrl', () => {
  it('reads the code at the end of a product path, else undefined', () => {
    expect(styleColorOfUrl('https://www.nike.com/fr/t/x-AbCdEf/cw2288-111?x=1')).toBe('CW2288-111');
    expect(styleColorOfUrl('https://www.nike.com/w/mens-shoes')).toBeUndefined();
    expect(styleColorOfUrl('not a url')).toBeUndefined();
  });
});

describe('storefronts', () => {
  it('normalises countries and rejects what is not one', () => {
    expect(normaliseCountry('fr')).toBe('FR');
    expect(normaliseCountry('UK')).toBe('GB');
    expect(normaliseCountry('XX')).toBeUndefined();
    expect(normaliseCountry('ZZ')).toBeUndefined();
  });

  it('builds Accept-Language from the URL language or the storefront default', () => {
    expect(acceptLanguage('US', null)).toBe('en-US,en;q=0.9');
    expect(acceptLanguage('FR', null)).toBe('fr-FR,fr;q=0.9');
    expect(acceptLanguage('GB', null)).toBe('en-GB,en;q=0.9');
    expect(acceptLanguage('CA', 'fr')).toBe('fr-CA,fr;q=0.9');
    expect(acceptLanguage('NL', null)).toBe('en-NL,en;q=0.9');
  });
});
