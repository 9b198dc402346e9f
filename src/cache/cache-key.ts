/**
 * The cache key of a lookup: the operation name plus its parameters after validation (so `country=us` and
 * `country=US` share an entry), in sorted key order, without `max_age` (a freshness bound, not part of the question).
 * @example cacheKey('resale-b.prices', { query: '1341930', country: 'US' }) // 'resale-b.prices?country=US&query=1341930'
 */
export function cacheKey(operation: string, params: Record<string, unknown>): string {
  const names = Object.keys(params).sort();
  let key = `${operation}?`;
  let first = true;
  for (const name of names) {
    const value = params[name];
    if (value === undefined || name === 'max_age') continue;
    // Strings and numbers are the common case; anything structured is written as JSON so it stays unambiguous.
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    key += `${first ? '' : '&'}${encodeURIComponent(name)}=${encodeURIComponent(text)}`;
    first = false;
  }
  return key;
}
