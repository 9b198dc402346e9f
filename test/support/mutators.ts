/**
 * Mutators for the parser-robustness suite (test/robustness.test.ts): deterministic enumerations of hostile variants
 * of an upstream document (truncations, removed keys, changed types, emptied arrays, removed/duplicated/corrupted
 * scripts). Pure string/JSON work, no DOM: a mutation must be cheap enough to run hundreds per capture.
 */

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type Path = (string | number)[];

/** Values a changed type is set to. Distinctive, so a record that passes one through is recognisable. */
export const MARKER_NUMBER = 424242;
export const MARKER_STRING = 'mutated-value';
export const RETYPES: ReadonlyArray<{ name: string; value: Json }> = [
  { name: 'null', value: null },
  { name: 'number', value: MARKER_NUMBER },
  { name: 'string', value: MARKER_STRING },
  { name: 'boolean', value: true },
  { name: 'array', value: [] },
  { name: 'object', value: {} },
];

/** Seeded PRNG (mulberry32): the same seed gives the same mutations on every run. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Up to `n` items of `list`, spread evenly (first and last included): deterministic sampling. */
export function spread<T>(list: readonly T[], n: number): T[] {
  if (list.length <= n) return [...list];
  if (n <= 1) return list.slice(0, n);
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(list[Math.round((i * (list.length - 1)) / (n - 1))]!);
  return [...new Set(out)];
}

export function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** `a.b[3].c` → `a.b[].c`: the path of every element of an array at once. */
export function normalisePath(path: Path): string {
  return path.map((p) => (typeof p === 'number' ? '[]' : `.${p}`)).join('');
}

export function showPath(path: Path): string {
  return path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('') || '(root)';
}

/**
 * Every key and array element under `root`, once per normalised path (the first instance: `items[0].x` stands for
 * `items[].x`). Depth-first, parents before children.
 */
export function distinctPaths(root: Json, maxDepth = 40): Array<{ path: Path; value: Json }> {
  const seen = new Set<string>();
  const out: Array<{ path: Path; value: Json }> = [];
  const walk = (v: Json, path: Path) => {
    if (path.length > maxDepth) return;
    if (path.length > 0) {
      const key = normalisePath(path);
      if (seen.has(key)) return;
      seen.add(key);
      out.push({ path, value: v });
    }
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
  };
  walk(root, []);
  return out;
}

/** A copy of `root` with the value at `path` replaced (`undefined` removes the key / array element). */
export function withValueAt(root: Json, path: Path, value: Json | undefined): Json {
  if (path.length === 0) return value === undefined ? null : value;
  const [head, ...rest] = path;
  if (Array.isArray(root)) {
    const copy = root.slice();
    const i = head as number;
    if (rest.length === 0 && value === undefined) copy.splice(i, 1);
    else copy[i] = withValueAt(copy[i]!, rest, value);
    return copy;
  }
  if (root !== null && typeof root === 'object') {
    const copy: { [k: string]: Json } = { ...root };
    const k = head as string;
    if (rest.length === 0 && value === undefined) delete copy[k];
    else copy[k] = withValueAt(copy[k]!, rest, value);
    return copy;
  }
  return root;
}

export function valueAt(root: Json, path: Path): Json | undefined {
  let v: Json | undefined = root;
  for (const p of path) {
    if (v === null || v === undefined || typeof v !== 'object') return undefined;
    v = Array.isArray(v) ? v[Number(p)] : v[p];
  }
  return v;
}

/** One structural edit of a JSON document. */
export interface JsonEdit {
  label: string;
  /** Removes or nulls or empties a value (the record may lose values, never gain new ones). */
  subtractive: boolean;
  path: Path;
  value: Json | undefined;
}

export function removeEdit(path: Path): JsonEdit {
  return { label: `remove ${showPath(path)}`, subtractive: true, path, value: undefined };
}

/** Type changes of the value at `path` (every other type), and emptied arrays/objects. */
export function retypeEdits(path: Path, current: Json): JsonEdit[] {
  const edits: JsonEdit[] = [];
  for (const t of RETYPES) {
    if (typeOf(t.value) === typeOf(current)) continue;
    edits.push({
      label: `${showPath(path)} ${typeOf(current)}→${t.name}`,
      subtractive: t.value === null,
      path,
      value: t.value,
    });
  }
  if (Array.isArray(current) && current.length > 0) {
    edits.push({ label: `empty array ${showPath(path)}`, subtractive: true, path, value: [] });
  }
  return edits;
}

export function applyEdit(root: Json, edit: JsonEdit): Json {
  return withValueAt(root, edit.path, edit.value);
}

// ---------------------------------------------------------------------------------------------------------------
// Text: truncation points
// ---------------------------------------------------------------------------------------------------------------

/** Byte offsets at fixed fractions of the text (never the full text). */
export function fractionCuts(text: string): number[] {
  const cuts = [0, 1, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99].map((f) => (f === 1 ? 1 : Math.floor(text.length * f)));
  cuts.push(text.length - 1);
  return [...new Set(cuts)].filter((c) => c >= 0 && c < text.length);
}

/** Offsets just after JSON structure characters (`{ [ , :`) outside strings, spread over the document. */
export function jsonBoundaryCuts(text: string, n: number): number[] {
  const at: number[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[' || c === ',' || c === ':') at.push(i + 1);
  }
  return spread(at, n);
}

/** Offsets at HTML tag starts (`<`), spread over the document, plus each `</script>` start. */
export function htmlBoundaryCuts(text: string, n: number): number[] {
  const tags: number[] = [];
  const scriptEnds: number[] = [];
  for (let i = text.indexOf('<'); i !== -1; i = text.indexOf('<', i + 1)) {
    tags.push(i);
    if (text.startsWith('</script', i)) scriptEnds.push(i);
  }
  return [...new Set([...spread(tags, n), ...spread(scriptEnds, n)])].sort((a, b) => a - b);
}

// ---------------------------------------------------------------------------------------------------------------
// HTML: scripts and the JSON embedded in them
// ---------------------------------------------------------------------------------------------------------------

export interface ScriptBlock {
  /** Offsets of `<script…>` and just after `</script>`. */
  start: number;
  end: number;
  /** Offsets of the script's text. */
  contentStart: number;
  contentEnd: number;
  /** The JSON value in the script (the whole text, or the first balanced `{…}`/`[…]` in it, as in `push({…})`). */
  json?: { start: number; end: number; value: Json };
}

/** End (exclusive) of the balanced `{…}` / `[…]` starting at `from`, skipping strings; -1 when unbalanced. */
export function balancedEnd(text: string, from: number, limit = text.length): number {
  let depth = 0;
  let inString = false;
  for (let i = from; i < limit; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

export function scriptBlocks(html: string): ScriptBlock[] {
  const out: ScriptBlock[] = [];
  const open = /<script\b[^>]*>/gi;
  let m: RegExpExecArray | null;
  while ((m = open.exec(html))) {
    const contentStart = m.index + m[0].length;
    const contentEnd = html.indexOf('</script>', contentStart);
    if (contentEnd === -1) break;
    const block: ScriptBlock = { start: m.index, end: contentEnd + '</script>'.length, contentStart, contentEnd };
    const brace = html.slice(contentStart, contentEnd).search(/[{[]/);
    if (brace !== -1) {
      const s = contentStart + brace;
      const e = balancedEnd(html, s, contentEnd);
      if (e !== -1 && e - s > 2) {
        try {
          block.json = { start: s, end: e, value: JSON.parse(html.slice(s, e)) as Json };
        } catch {
          // not JSON (JavaScript): only removed/duplicated/truncated, never edited structurally
        }
      }
    }
    out.push(block);
    open.lastIndex = block.end;
  }
  return out;
}

/** JSON as a page embeds it: `<` escaped so the script element cannot end early. */
export function embedJson(value: Json): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

export function replaceRange(text: string, start: number, end: number, by: string): string {
  return text.slice(0, start) + by + text.slice(end);
}

/** Corruptions of embedded JSON text that keep the script element intact. */
export function corruptJsonText(json: string): Array<{ label: string; text: string }> {
  const mid = Math.floor(json.length / 2);
  // a structure boundary near the middle, outside strings: the stray brace must break the JSON, not edit a string
  const at = jsonBoundaryCuts(json, 3)[1] ?? mid;
  return [
    { label: 'cut in half', text: json.slice(0, mid) },
    { label: 'stray brace in the middle', text: `${json.slice(0, at)}}${json.slice(at)}` },
    { label: 'trailing garbage', text: `${json},]` },
    { label: 'single quotes', text: json.replace(/"/g, "'") },
    { label: 'NaN for the first number', text: json.replace(/:\s*-?\d+(\.\d+)?/, ':NaN') },
  ];
}
