/**
 * Nike storefronts: the URL path picks country and language (notes §4). The table holds the storefronts the notes
 * document; other countries Nike serves under `/{cc}/` are accepted too (their language is whatever Nike serves).
 */

/** Default language of each documented storefront (notes §4); US has no path segment. */
export const STOREFRONT_LANGUAGES: Readonly<Record<string, string>> = {
  US: 'en',
  GB: 'en-GB',
  CA: 'en-CA',
  AU: 'en-GB',
  DE: 'de',
  FR: 'fr',
  IT: 'it',
  ES: 'es-ES',
  JP: 'ja',
  KR: 'ko',
  CZ: 'cs',
  IN: 'en-GB',
};

/** Codes Intl knows as regions that are not countries with a storefront. */
const NOT_COUNTRIES = new Set(['EU', 'EZ', 'UN', 'QO', 'XA', 'XB', 'ZZ']);
const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });

/**
 * ISO 3166-1 alpha-2 country (any case; `UK` means GB) → upper-case code, or undefined when it is not a country.
 * @example normaliseCountry('fr') // 'FR'
 * @example normaliseCountry('UK') // 'GB'
 */
export function normaliseCountry(input: string): string | undefined {
  const cc = input.trim().toUpperCase();
  if (cc === 'UK') return 'GB';
  if (!/^[A-Z]{2}$/.test(cc) || NOT_COUNTRIES.has(cc)) return undefined;
  // Intl answers the code itself for a well-formed code it does not know.
  return regionNames.of(cc) === cc ? undefined : cc;
}

/**
 * The Accept-Language a browser on that storefront sends: the URL's language segment, else the storefront default.
 * @example acceptLanguage('FR', null) // 'fr-FR,fr;q=0.9'
 */
export function acceptLanguage(country: string, language: string | null): string {
  const lang = language ?? STOREFRONT_LANGUAGES[country] ?? 'en';
  const primary = lang.split('-')[0]!;
  const tag = lang.includes('-') ? lang : `${primary}-${country}`;
  return `${tag},${primary};q=0.9`;
}
