// A tiny element builder: the page is built from data with text nodes only (never innerHTML with data in it).

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, string | number | boolean | ((e: Event) => void) | undefined | null>} [attrs]
 * @param {(Node | string | number | null | undefined | false)[]} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.replace(/^on/, ''), v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** @param {Element} el @param {...(Node | string)} children */
export function replace(el, ...children) {
  el.replaceChildren(...children);
}

/** A live message for screen readers and eyes. @param {string} text */
export function notify(text) {
  const notice = document.getElementById('notice');
  if (notice) notice.textContent = text;
}
