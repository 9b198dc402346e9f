/**
 * Country, language and currency as StockX takes them (notes §5): country → GraphQL `countryCode`/`marketName` and
 * the `selected-country` header; currency → GraphQL `currencyCode`; language → `accept-language` and the product
 * page's locale path prefix (`/fr-fr/{slug}`).
 */
import { z } from 'zod';

/** Countries StockX lists in `allCountries` (ISO 3166-1 alpha-2, plus its own IC Canary Islands and XK Kosovo). */
export const RESALE_A_COUNTRIES = (
  'AD AE AG AI AL AM AO AR AS AT AU AW AZ BA BB BE BF BG BH BI BJ BM BN BO BR BS BT BW BY BZ CA CD CG CH CI CK CL CM ' +
  'CN CO CR CV CY CZ DE DJ DK DM DO DZ EC EE EG ER ES ET FI FJ FM FO FR GA GB GD GE GF GG GI GL GM GN GP GR GT GU GW ' +
  'GY HK HN HR HU IC ID IE IL IN IS IT JE JM JO JP KE KG KH KI KM KN KR KW KY KZ LA LC LI LK LS LT LU LV MA MC MD ME ' +
  'MG MH MK ML MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NZ OM PA PE PF PG PH PL PR PT PW PY ' +
  'QA RE RO RS RU RW SA SB SC SE SG SI SK SL SM SN SR ST SV SZ TC TD TG TH TJ TM TN TO TR TT TV TW TZ UA UG US UY VA ' +
  'VC VE VG VI VN VU WF WS XK YE YT ZA ZM ZW'
).split(' ');

/** Currencies of StockX's `CurrencyCode` enum that clients were seen using (notes §5). */
export const RESALE_A_CURRENCIES = [
  'USD',
  'EUR',
  'GBP',
  'AUD',
  'CAD',
  'CHF',
  'HKD',
  'JPY',
  'KRW',
  'MXN',
  'NZD',
  'SGD',
] as const;
export type ResaleACurrency = (typeof RESALE_A_CURRENCIES)[number];

/** Site locales (Next.js `locales`) by language tag; `en-US` is the unprefixed default. */
export const RESALE_A_LANGUAGES: Readonly<Record<string, string>> = {
  'en-US': '',
  'en-GB': 'en-gb',
  'de-DE': 'de-de',
  'es-ES': 'es-es',
  'es-MX': 'es-mx',
  'es-US': 'es-us',
  'fr-FR': 'fr-fr',
  'it-IT': 'it-it',
  'ja-JP': 'ja-jp',
  'ko-KR': 'ko-kr',
  'zh-CN': 'zh-cn',
  'zh-TW': 'zh-tw',
};

/** StockX's preferred currency per country, where it is not USD (from `allCountries`). */
const EUR_COUNTRIES = new Set(
  (
    'AD AL AM AT AZ BA BE BG BY CH CY CZ DE DK EE ES FI FO FR GE GF GP GR HR HU IE IS IT KZ LI LT LU LV MC MD ME MK MQ ' +
    'MT NL NO PL PT RE RO RS RU SE SI SK SM TR UA VA XK YT'
  ).split(' '),
);
const OTHER_PREFERRED: Readonly<Record<string, ResaleACurrency>> = {
  AU: 'AUD',
  KI: 'AUD',
  NF: 'AUD',
  TV: 'AUD',
  CA: 'CAD',
  GB: 'GBP',
  GG: 'GBP',
  GI: 'GBP',
  JE: 'GBP',
  HK: 'HKD',
  JP: 'JPY',
  MX: 'MXN',
  NZ: 'NZD',
  SG: 'SGD',
  KR: 'KRW',
};

/**
 * The currency StockX shows a visitor from `country` by default.
 * @example preferredCurrency('FR') // 'EUR'
 */
export function preferredCurrency(country: string): ResaleACurrency {
  if (EUR_COUNTRIES.has(country)) return 'EUR';
  return OTHER_PREFERRED[country] ?? 'USD';
}

export const countryParam = z
  .string()
  .trim()
  .toUpperCase()
  // "UK" is what people type; StockX (and ISO) say GB.
  .transform((c) => (c === 'UK' ? 'GB' : c))
  .refine((c) => RESALE_A_COUNTRIES.includes(c), {
    message: 'must be an ISO 3166-1 alpha-2 country code StockX serves, e.g. US, FR, GB',
  })
  .describe('Country whose market to show (ISO 3166-1 alpha-2, e.g. US, FR, GB; UK is read as GB). Default US.')
  // OpenAPI lists the accepted codes (lower case is accepted too), so generated clients type them.
  .meta({ enum: [...RESALE_A_COUNTRIES, 'UK'].sort() });

/**
 * StockX's preferred language per country where it is not en-US (`allCountries.preferredLanguage`, notes §5; the
 * other 187 countries prefer en-US).
 */
const PREFERRED_LANGUAGE: Readonly<Record<string, string>> = {
  AT: 'de-DE',
  CH: 'de-DE',
  DE: 'de-DE',
  LI: 'de-DE',
  LU: 'de-DE',
  ES: 'es-ES',
  IC: 'es-ES',
  MX: 'es-MX',
  FR: 'fr-FR',
  GB: 'en-GB',
  IT: 'it-IT',
  SM: 'it-IT',
  VA: 'it-IT',
  JP: 'ja-JP',
  KR: 'ko-KR',
  CN: 'zh-CN',
  TW: 'zh-TW',
};

/** The languages of the site locales (`en`, `de`, `es` …). */
const SITE_LANGUAGES = new Set(Object.keys(RESALE_A_LANGUAGES).map((tag) => tag.slice(0, 2)));

/**
 * A bare language (`en`) completed to a site locale the way StockX does for the country: the country's own locale of
 * that language (`en` in GB → en-GB, `es` in the US → es-US), else the country's preferred locale when it speaks that
 * language (`de` in AT → de-DE), else the locale most countries get for it (`en` → en-US, `zh` → zh-CN). A full tag
 * is kept.
 * @example completeLanguage('en', 'GB') // 'en-GB'
 */
export function completeLanguage(language: string, country: string): string {
  if (language.length !== 2) return language;
  const own = `${language}-${country}`;
  if (own in RESALE_A_LANGUAGES) return own;
  const preferred = PREFERRED_LANGUAGE[country];
  if (preferred?.startsWith(`${language}-`)) return preferred;
  return Object.keys(RESALE_A_LANGUAGES).find((tag) => tag.startsWith(`${language}-`)) ?? language;
}

export const languageParam = z
  .string()
  .trim()
  .regex(/^[a-zA-Z]{2}(?:-[a-zA-Z]{2})?$/, 'must look like en-US, or be a bare language such as en')
  .transform((l) => (l.length === 2 ? l.toLowerCase() : `${l.slice(0, 2).toLowerCase()}-${l.slice(3).toUpperCase()}`))
  .refine((l) => (l.length === 2 ? SITE_LANGUAGES.has(l) : Object.hasOwn(RESALE_A_LANGUAGES, l)), {
    message: `must be one of ${Object.keys(RESALE_A_LANGUAGES).join(', ')}, or one of their languages (${[...SITE_LANGUAGES].join(', ')})`,
  })
  .describe(
    `Language of the catalog texts: ${Object.keys(RESALE_A_LANGUAGES).join(', ')}. A bare language (\`en\`, \`fr\`) is ` +
      "completed as StockX does for the country (en in GB → en-GB, es in the US → es-US, else the country's or the " +
      "language's usual locale: en → en-US). Default en-US.",
  );

export const currencyParam = z
  .string()
  .trim()
  .toUpperCase()
  .refine((c) => (RESALE_A_CURRENCIES as readonly string[]).includes(c), {
    message: `must be one of ${RESALE_A_CURRENCIES.join(', ')}`,
  })
  .describe(
    `Currency of market prices (ISO 4217): ${RESALE_A_CURRENCIES.join(', ')}. Default: the country's StockX currency.`,
  )
  .meta({ enum: [...RESALE_A_CURRENCIES] });

export interface ResaleALocale {
  country: string;
  currency: ResaleACurrency;
  language: string;
}

/**
 * Fills defaults (country US, the country's StockX currency, en-US) and completes a bare language.
 * @example resolveLocale({ country: 'FR' }) // { country: 'FR', currency: 'EUR', language: 'en-US' }
 */
export function resolveLocale(p: { country?: string; currency?: string; language?: string }): ResaleALocale {
  const country = p.country ?? 'US';
  return {
    country,
    currency: (p.currency as ResaleACurrency | undefined) ?? preferredCurrency(country),
    language: p.language === undefined ? 'en-US' : completeLanguage(p.language, country),
  };
}

/**
 * The page path prefix for a language: '' for en-US, '/fr-fr' for fr-FR.
 * @example localePathPrefix('fr-FR') // '/fr-fr'
 */
export function localePathPrefix(language: string): string {
  const segment = RESALE_A_LANGUAGES[language] ?? '';
  return segment === '' ? '' : `/${segment}`;
}
