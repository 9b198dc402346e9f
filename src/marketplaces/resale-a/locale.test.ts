import { describe, expect, it } from 'vitest';
import {
  countryParam,
  currencyParam,
  languageParam,
  localePathPrefix,
  preferredCurrency,
  resolveLocale,
} from './locale.js';

describe('locale parameters', () => {
  it('country: ISO alpha-2 StockX serves, any case; UK is GB', () => {
    expect(countryParam.parse('fr')).toBe('FR');
    expect(countryParam.parse('UK')).toBe('GB');
    expect(countryParam.safeParse('ZZ').success).toBe(false);
    expect(countryParam.safeParse('USA').success).toBe(false);
  });

  it('language: en-US form, one of the site locales, normalised', () => {
    expect(languageParam.parse('fr-fr')).toBe('fr-FR');
    expect(languageParam.safeParse('fr').success).toBe(false);
    expect(languageParam.safeParse('pt-BR').success).toBe(false);
  });

  it('currency: StockX currencies only', () => {
    expect(currencyParam.parse('eur')).toBe('EUR');
    expect(currencyParam.safeParse('XYZ').success).toBe(false);
    expect(currencyParam.safeParse('BTC').success).toBe(false);
  });

  it('defaults: US, the country currency, en-US', () => {
    expect(resolveLocale({})).toEqual({ country: 'US', currency: 'USD', language: 'en-US' });
    expect(resolveLocale({ country: 'FR' })).toEqual({ country: 'FR', currency: 'EUR', language: 'en-US' });
    expect(resolveLocale({ country: 'GB', currency: 'USD', language: 'en-GB' })).toEqual({
      country: 'GB',
      currency: 'USD',
      language: 'en-GB',
    });
    expect(preferredCurrency('JP')).toBe('JPY');
    expect(preferredCurrency('BR')).toBe('USD');
  });

  it('page path prefix per language', () => {
    expect(localePathPrefix('en-US')).toBe('');
    expect(localePathPrefix('fr-FR')).toBe('/fr-fr');
    expect(localePathPrefix('zh-TW')).toBe('/zh-tw');
  });
});
