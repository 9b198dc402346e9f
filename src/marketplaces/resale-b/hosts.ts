/** GOAT's origins: the storefront and web API, and Constructor.io, the search service its pages used (notes §2 F). */
export const GOAT_ORIGIN = 'https://www.goat.com';
export const CONSTRUCTOR_ORIGIN = 'https://ac.cnstrc.com';
/** The public key GOAT's pages send to Constructor.io (../shared/upstreams/goat.md §2 F). */
export const CONSTRUCTOR_KEY = 'key_XT7bjdbvjgECO5d8';
