import { describe, expect, it } from 'vitest';
import {
  completeLanguage,
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
    expect(languageParam.safeParse('pt-BR').success).toBe(false);
  });

  it('language: a bare language of a site locale is accepted as given (completed with the country)', () => {
    expect(languageParam.parse('EN')).toBe('en');
    expect(languageParam.parse('fr')).toBe('fr');
    expect(languageParam.safeParse('pt').success).toBe(false);
    expect(languageParam.safeParse('e').success).toBe(false);
  });

  it.each([
    ['en', 'US', 'en-US'],
    ['en', 'GB', 'en-GB'],
    ['en', 'FR', 'en-US'],
    ['fr', 'FR', 'fr-FR'],
    ['fr', 'US', 'fr-FR'],
    ['es', 'US', 'es-US'],
    ['es', 'MX', 'es-MX'],
    ['es', 'IC', 'es-ES'],
    ['de', 'AT', 'de-DE'],
    ['it', 'SM', 'it-IT'],
    ['zh', 'TW', 'zh-TW'],
    ['zh', 'US', 'zh-CN'],
    ['ja', 'JP', 'ja-JP'],
  ])('completeLanguage(%s, %s) is %s, as StockX says for the country', (language, country, full) => {
    expect(completeLanguage(language, country)).toBe(full);
    expect(resolveLocale({ country, language }).language).toBe(full);
  });

  it('a full tag is kept whatever the country', () => {
    expect(completeLanguage('en-GB', 'US')).toBe('en-GB');
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
