/**
 * A canonical search key: the search's parameters in sorted order, without paging-independent noise. Two requests
 * asking the same question give the same key whatever order or case they used (params are already validated, so
 * defaults are filled and codes normalised).
 * @example searchKey({ query: 'Rolex', currency: 'USD', page: 1 }) // 'currency=USD&page=1&query=Rolex'
 */
export function searchKey(params: Readonly<Record<string, unknown>>): string {
  return Object.keys(params)
    .filter((k) => params[k] !== undefined)
    .sort()
    .map((k) => {
      const v = params[k];
      return `${encodeURIComponent(k)}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))}`;
    })
    .join('&');
}
