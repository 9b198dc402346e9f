/** The OpenAPI tag of the price-history routes (db API, tracking, the history series). */
export const HISTORY_TAG = 'Price history';
