/**
 * Embedded JSON out of HTML by string slicing + JSON.parse (≈2 ms/MB), never by building a DOM.
 */

/**
 * The JSON inside `<script … id="{id}" …>…</script>`, or undefined when the page has no such script.
 * Throws SyntaxError when the script is there but its JSON is not.
 * @example extractScriptJson(html, '__NEXT_DATA__')?.props.pageProps
 */
export function extractScriptJson(html: string, id: string): unknown {
  const text = extractScriptText(html, id);
  return text === undefined ? undefined : JSON.parse(text);
}

/** The raw text of the script element with the given id, or undefined. */
function extractScriptText(html: string, id: string): string | undefined {
  const needles = [`id="${id}"`, `id='${id}'`, `id=${id}`];
  let at = -1;
  for (const n of needles) {
    at = html.indexOf(n);
    if (at !== -1) break;
  }
  if (at === -1) return undefined;
  const open = html.lastIndexOf('<script', at);
  if (open === -1) return undefined;
  const start = html.indexOf('>', at);
  const end = html.indexOf('</script>', start);
  if (start === -1 || end === -1) return undefined;
  return html.slice(start + 1, end);
}

/** `__NEXT_DATA__` of a Next.js page (pages router), or undefined. */
export function extractNextData(html: string): unknown {
  return extractScriptJson(html, '__NEXT_DATA__');
}

/** Wraps a JSON value the way a Next.js page carries it (for `marketlens parse` on extracted captures and tests). */
export function wrapAsNextDataPage(nextData: unknown): string {
  const json = JSON.stringify(nextData).replace(/</g, '\\u003c');
  return `<!DOCTYPE html><html><head></head><body><div id="__next"></div><script id="__NEXT_DATA__" type="application/json">${json}</script></body></html>`;
}
