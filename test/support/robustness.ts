/**
 * The engine of the parser-robustness suite: finds the upstream documents inside an operation's bodies, derives
 * hostile variants of them (test/support/mutators.ts), runs `parseAndCheck` on each and judges the outcome:
 *   - a record that passes `op.record`, holding no value the unmutated record lacks at that place (a removed price
 *     must not come back as 0 or as another field's value), or
 *   - a MarketlensError `upstream_changed` / `not_found` (or a code the case declares),
 *   - never another exception, never a parse slower than PARSE_BUDGET_MS.
 */
import { MarketlensError, type ErrorCode } from '../../src/errors.js';
import { parseAndCheck } from '../../src/operations/lookup.js';
import type { Operation } from '../../src/operations/types.js';
import {
  MARKER_NUMBER,
  MARKER_STRING,
  applyEdit,
  corruptJsonText,
  distinctPaths,
  embedJson,
  fractionCuts,
  htmlBoundaryCuts,
  jsonBoundaryCuts,
  normalisePath,
  removeEdit,
  replaceRange,
  retypeEdits,
  scriptBlocks,
  spread,
  type Json,
  type JsonEdit,
  type Path,
} from './mutators.js';
import type { RobustnessCase } from './robustness-cases.js';

/** A parse of one (mutated) capture must finish within this, even on a loaded 2-core box. */
export const PARSE_BUDGET_MS = 2000;

export interface Limits {
  /** Key paths removed per JSON document by the diffing search (plus a quarter as many sampled). */
  removals: number;
  /** Key paths the parser reads (removal changed the outcome) whose type is changed. */
  retypes: number;
  /** Structural truncation points per document (besides fixed fractions). */
  cuts: number;
  /** Script blocks removed/duplicated per page. */
  scripts: number;
  /** Class names removed per page without embedded JSON. */
  classes: number;
}

export const DEFAULT_LIMITS: Limits = { removals: 150, retypes: 30, cuts: 8, scripts: 6, classes: 20 };

type Kind = 'json' | 'html' | 'value';

/** One upstream document inside the bodies: where it sits and how it is read. */
export interface Slot {
  path: Path;
  kind: Kind;
}

/** Keys of a bodies object that hold an already-parsed document (electronics' saved scraper page data). */
const VALUE_KEYS = new Set(['pageData']);

export function slotsOf(bodies: unknown): Slot[] {
  const out: Slot[] = [];
  const walk = (v: unknown, path: Path) => {
    if (typeof v === 'string') {
      const kind = classify(v);
      if (kind) out.push({ path, kind });
    } else if (Array.isArray(v)) {
      if (path.length === 0) out.push({ path, kind: 'value' });
      else v.forEach((x, i) => walk(x, [...path, i]));
    } else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (VALUE_KEYS.has(k) && x !== null && typeof x === 'object') out.push({ path: [...path, k], kind: 'value' });
        else walk(x, [...path, k]);
      }
    }
  };
  walk(bodies, []);
  return out;
}

function classify(s: string): Kind | undefined {
  const t = s.trimStart();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      JSON.parse(s);
      return 'json';
    } catch {
      // markup that starts with `[` (a scraper's list of card fragments) is still markup
    }
  }
  return /<(!doctype|html|head|body|div|script|main|a|span)\b/i.test(t.slice(0, 2000)) ? 'html' : undefined;
}

/** A JSON node as these walkers index it (a path step is a key or an array index). */
type Indexable = Record<string | number, unknown>;

function getAt(root: unknown, path: Path): unknown {
  let v = root;
  for (const p of path) v = (v as Indexable)[p];
  return v;
}

function setAt(root: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = (Array.isArray(root) ? (root as unknown[]).slice() : { ...(root as object) }) as Indexable;
  copy[path[0]!] = setAt(copy[path[0]!], path.slice(1), value);
  return copy;
}

export type Outcome = { ok: true; record: unknown; ms: number } | { ok: false; error: unknown; ms: number };

export function run(op: Operation, bodies: unknown, params: Record<string, unknown>): Outcome {
  const t0 = performance.now();
  try {
    const record = parseAndCheck(op, bodies, params);
    return { ok: true, record, ms: performance.now() - t0 };
  } catch (error) {
    return { ok: false, error, ms: performance.now() - t0 };
  }
}

/** Scalar leaves of a record by normalised path (`results[].price`) → the values seen there. */
export function leafIndex(record: unknown): Map<string, Set<string>> {
  const index = new Map<string, Set<string>>();
  const walk = (v: unknown, path: Path) => {
    if (Array.isArray(v)) return v.forEach((x, i) => walk(x, [...path, i]));
    if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
      return;
    }
    const key = normalisePath(path);
    if (!index.has(key)) index.set(key, new Set());
    index.get(key)!.add(JSON.stringify(v));
  };
  walk(record, []);
  return index;
}

/** A value a parser is known to invent at a record path: reported (see the suite's header), excluded until fixed. */
export interface Reported {
  path: RegExp;
  value: string;
  why: string;
}

/**
 * Values of `mutated` found nowhere at the same place in `original`: each is a value the parser made up or took
 * from elsewhere. Nulls are fine (a lost value); with `markers`, so are the mutators' markers (a new upstream value
 * passed through). `derived`: paths the service computes or fills from a documented second source.
 */
export function inventedValues(
  original: Map<string, Set<string>>,
  mutated: unknown,
  derived: readonly RegExp[],
  markers: boolean,
  reported: readonly Reported[] = [],
): string[] {
  const out: string[] = [];
  for (const [path, values] of leafIndex(mutated)) {
    if (derived.some((re) => re.test(path))) continue;
    // A key renamed by the mutation (a value that names a key, as the finder's `param`) is upstream's new name.
    if (markers && path.includes(MARKER_STRING)) continue;
    const known = original.get(path);
    for (const v of values) {
      if (v === 'null' || known?.has(v)) continue;
      // A changed type passed through or coerced (424242 → "424242", true → "true") is upstream's value, not made up.
      if (markers && (v.includes(String(MARKER_NUMBER)) || v === 'true' || v === '"true"' || v.includes(MARKER_STRING)))
        continue;
      if (reported.some((r) => r.path.test(path) && r.value === v)) continue;
      out.push(`${path}=${v.slice(0, 80)}`);
    }
  }
  return out;
}

export interface Variant {
  label: string;
  bodies: unknown;
  /** The mutation only removes/empties/nulls/cuts: the record must not gain values. */
  subtractive: boolean;
  /**
   * The mutation removes or replaces a whole array element: later elements move up, so one that a record's cap
   * (e.g. first 10 hits) or a "first match" rule left out may legitimately appear.
   */
  shifts?: boolean;
}

/** Every hostile variant of every document in `bodies`, lazily (a variant is built only when consumed). */
export function* variantsOf(bodies: unknown, limits: Limits, judge: (b: unknown) => Outcome): Generator<Variant> {
  for (const slot of slotsOf(bodies)) {
    const doc = getAt(bodies, slot.path);
    const where = slot.path.length ? slot.path.join('.') : 'body';
    const put = (value: unknown) => setAt(bodies, slot.path, value);
    if (slot.kind === 'json') {
      const text = doc as string;
      for (const c of [...fractionCuts(text), ...jsonBoundaryCuts(text, limits.cuts)]) {
        yield { label: `${where}: truncated at ${c}/${text.length}`, bodies: put(text.slice(0, c)), subtractive: true };
      }
      yield* structural(JSON.parse(text) as Json, (j) => put(JSON.stringify(j)), where, limits, judge);
    } else if (slot.kind === 'value') {
      yield* structural(structuredClone(doc) as Json, (j) => put(j), where, limits, judge);
    } else {
      yield* htmlVariants(doc as string, put, where, limits, judge);
    }
  }
}

/**
 * Removals found by diffing: a key whose removal changes the outcome is one the parser reads, and only under such
 * keys does the search go deeper (so the budget goes to the paths the parser reads, not to unread subtrees). Arrays
 * are entered through their first elements. A spread sample of all distinct paths adds reads hidden behind a
 * fallback (a parent whose removal changes nothing because a second source fills in). Read keys then get every
 * other type and, for arrays, emptied.
 */
function* structural(
  root: Json,
  put: (j: Json) => unknown,
  where: string,
  limits: Limits,
  judge: (b: unknown) => Outcome,
): Generator<Variant> {
  const baseline = JSON.stringify(outcomeKey(judge(put(root))));
  const read: Array<{ path: Path; value: Json }> = [];
  const visited = new Set<string>();
  function* remove(p: { path: Path; value: Json }): Generator<Variant, boolean> {
    visited.add(JSON.stringify(p.path));
    const edit = removeEdit(p.path);
    const bodies = put(applyEdit(root, edit));
    yield { label: `${where}: ${edit.label}`, bodies, subtractive: true, shifts: typeof p.path.at(-1) === 'number' };
    // `judge` is memoised by the caller: this reuses the run the consumer just made.
    const changed = JSON.stringify(outcomeKey(judge(bodies))) !== baseline;
    if (changed) read.push(p);
    return changed;
  }
  const queue = childrenOf(root, []);
  for (let n = 0; queue.length > 0 && n < limits.removals; n++) {
    const p = queue.shift()!;
    if (yield* remove(p)) queue.push(...childrenOf(p.value, p.path));
  }
  const sample = distinctPaths(root).filter((p) => !visited.has(JSON.stringify(p.path)));
  for (const p of spread(sample, Math.ceil(limits.removals / 4))) yield* remove(p);
  for (const p of spread(read, limits.retypes)) {
    for (const edit of retypeEdits(p.path, p.value)) yield editVariant(root, edit, put, where);
  }
}

/** The keys of an object, or the first few elements of an array, as paths. */
function childrenOf(value: Json, path: Path, arrayHead = 3): Array<{ path: Path; value: Json }> {
  if (Array.isArray(value)) return value.slice(0, arrayHead).map((x, i) => ({ path: [...path, i], value: x }));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).map(([k, x]) => ({ path: [...path, k], value: x }));
  return [];
}

function editVariant(root: Json, edit: JsonEdit, put: (j: Json) => unknown, where: string): Variant {
  const shifts = typeof edit.path.at(-1) === 'number';
  return {
    label: `${where}: ${edit.label}`,
    bodies: put(applyEdit(root, edit)),
    subtractive: edit.subtractive,
    shifts,
  };
}

function outcomeKey(o: Outcome): unknown {
  return o.ok ? o.record : o.error instanceof MarketlensError ? o.error.code : String(o.error);
}

function* htmlVariants(
  html: string,
  put: (s: string) => unknown,
  where: string,
  limits: Limits,
  judge: (b: unknown) => Outcome,
): Generator<Variant> {
  for (const c of [...fractionCuts(html), ...htmlBoundaryCuts(html, limits.cuts)]) {
    yield { label: `${where}: truncated at ${c}/${html.length}`, bodies: put(html.slice(0, c)), subtractive: true };
  }
  const blocks = scriptBlocks(html);
  for (const [i, b] of spread(blocks, limits.scripts).map((b) => [blocks.indexOf(b), b] as const)) {
    const tag = html.slice(b.start, b.contentStart).slice(0, 60);
    yield {
      label: `${where}: script #${i} ${tag} removed`,
      bodies: put(replaceRange(html, b.start, b.end, '')),
      subtractive: true,
    };
    const copy = html.slice(b.start, b.end);
    yield {
      label: `${where}: script #${i} ${tag} duplicated`,
      bodies: put(replaceRange(html, b.end, b.end, copy)),
      subtractive: false,
    };
  }
  const withJson = blocks.filter((b) => b.json);
  for (const b of withJson) {
    const i = blocks.indexOf(b);
    const { start, end, value } = b.json!;
    for (const c of corruptJsonText(html.slice(start, end))) {
      yield {
        label: `${where}: script #${i} JSON ${c.label}`,
        bodies: put(replaceRange(html, start, end, c.text)),
        subtractive: false,
      };
    }
    yield* structural(
      value,
      (j) => put(replaceRange(html, start, end, embedJson(j))),
      `${where} script #${i}`,
      limits,
      judge,
    );
  }
  {
    // Pages read through their markup (Chrono24): markup changes are class names that vanish.
    const classes = [
      ...new Set([...html.matchAll(/class="([^"]*)"/g)].flatMap((m) => m[1]!.split(/\s+/)).filter(Boolean)),
    ].sort();
    for (const cls of spread(classes, limits.classes)) {
      const re = new RegExp(`(class="[^"]*?)(?<![\\w-])${cls.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`, 'g');
      yield { label: `${where}: class "${cls}" removed`, bodies: put(html.replace(re, '$1')), subtractive: true };
    }
  }
}

export interface Finding {
  label: string;
  problem: string;
}

export interface Report {
  variants: number;
  ok: number;
  errors: Partial<Record<string, number>>;
  slowestMs: number;
  findings: Finding[];
}

/** What the suite knows about one case while judging its variants. */
export interface Judge {
  c: RobustnessCase;
  original: Map<string, Set<string>>;
  /** Ids of the items of the unmutated record's list (a search's hits), to recognise items a cap had left out. */
  itemIds: Set<string>;
  allowed: Set<ErrorCode>;
  derived: readonly RegExp[];
  reported: readonly Reported[];
}

export function judgeFor(
  c: RobustnessCase,
  derived: readonly RegExp[] = [],
  reported: readonly Reported[] = [],
): Judge {
  const base = run(c.op, c.bodies(), c.params);
  if (!base.ok) throw new Error(`${c.label}: the unmutated input does not parse: ${String(base.error)}`);
  const allowed = new Set<ErrorCode>([
    'upstream_changed',
    'not_found',
    ...(Object.keys(c.extraCodes ?? {}) as ErrorCode[]),
  ]);
  return {
    c,
    original: leafIndex(base.record),
    itemIds: new Set(listItems(base.record).map(itemId)),
    allowed,
    derived,
    reported,
  };
}

/** The property, for one variant's outcome: the problems found (empty when it holds). */
export function problemsOf(j: Judge, v: Pick<Variant, 'subtractive' | 'shifts'>, o: Outcome): string[] {
  const problems: string[] = [];
  if (o.ms > PARSE_BUDGET_MS) problems.push(`parse took ${Math.round(o.ms)} ms`);
  if (o.ok) {
    if (!j.c.op.record.safeParse(o.record).success) problems.push('record returned that fails op.record');
    const invented = v.shifts
      ? []
      : inventedValues(j.original, withoutNewItems(o.record, j.itemIds), j.derived, !v.subtractive, j.reported);
    if (invented.length > 0) problems.push(`values not in the unmutated record: ${invented.slice(0, 5).join(', ')}`);
    return problems;
  }
  const e = o.error;
  if (!(e instanceof MarketlensError))
    problems.push(
      `threw ${(e as Error)?.name ?? typeof e} (not a MarketlensError): ${String((e as Error)?.message ?? e).slice(0, 200)}`,
    );
  else if (!j.allowed.has(e.code)) problems.push(`threw ${e.code}: ${e.message.slice(0, 200)}`);
  return problems;
}

/** Runs every enumerated variant of a case and collects what breaks the property. */
export function checkCase(
  c: RobustnessCase,
  derived: readonly RegExp[] = [],
  reported: readonly Reported[] = [],
  limits: Limits = DEFAULT_LIMITS,
): Report {
  const j = judgeFor(c, derived, reported);
  const memo = new WeakMap<object, Outcome>();
  const strMemo = new Map<string, Outcome>();
  const judge = (bodies: unknown): Outcome => {
    if (typeof bodies === 'string') {
      let o = strMemo.get(bodies);
      if (!o) {
        // Keep only the last few: the engine asks again only for the variant it just yielded.
        if (strMemo.size > 2) strMemo.clear();
        strMemo.set(bodies, (o = run(c.op, bodies, c.params)));
      }
      return o;
    }
    let o = memo.get(bodies as object);
    if (!o) memo.set(bodies as object, (o = run(c.op, bodies, c.params)));
    return o;
  };
  const report: Report = { variants: 0, ok: 0, errors: {}, slowestMs: 0, findings: [] };
  for (const v of variantsOf(c.bodies(), limits, judge)) {
    report.variants++;
    const o = judge(v.bodies);
    report.slowestMs = Math.max(report.slowestMs, o.ms);
    if (o.ok) report.ok++;
    else {
      const code = o.error instanceof MarketlensError ? o.error.code : 'non-MarketlensError';
      report.errors[code] = (report.errors[code] ?? 0) + 1;
    }
    for (const problem of problemsOf(j, v, o)) report.findings.push({ label: v.label, problem });
  }
  return report;
}

/** The list of a list record: the record itself when an array (search hits), else its `results`. */
function listItems(record: unknown): unknown[] {
  if (Array.isArray(record)) return record;
  const results = (record as { results?: unknown } | null)?.results;
  return Array.isArray(results) ? results : [];
}

function itemId(item: unknown): string {
  return JSON.stringify((item as { id?: unknown } | null)?.id ?? null);
}

/**
 * The record without list items the unmutated record did not list: when a mutation drops an item, a list capped at
 * N (StockX's first hits) lets the next one in, which is upstream's real item, not a made-up one. Items with an id
 * the unmutated record lists are kept and checked field by field.
 */
function withoutNewItems(record: unknown, ids: Set<string>): unknown {
  const keep = (items: unknown[]) => items.filter((item) => ids.has(itemId(item)));
  if (Array.isArray(record)) return keep(record);
  if (record !== null && typeof record === 'object' && Array.isArray((record as { results?: unknown }).results)) {
    return { ...record, results: keep((record as { results: unknown[] }).results) };
  }
  return record;
}

/** A JSON document inside the bodies (a JSON body, an already-parsed value, or a page's embedded script JSON). */
export interface JsonDoc {
  label: string;
  root: Json;
  put: (j: Json) => unknown;
}

export function jsonDocsOf(bodies: unknown): JsonDoc[] {
  const out: JsonDoc[] = [];
  for (const slot of slotsOf(bodies)) {
    const doc = getAt(bodies, slot.path);
    const where = slot.path.length ? slot.path.join('.') : 'body';
    if (slot.kind === 'json')
      out.push({
        label: where,
        root: JSON.parse(doc as string) as Json,
        put: (j) => setAt(bodies, slot.path, JSON.stringify(j)),
      });
    else if (slot.kind === 'value')
      out.push({ label: where, root: doc as Json, put: (j) => setAt(bodies, slot.path, j) });
    else {
      const html = doc as string;
      for (const [i, b] of scriptBlocks(html).entries()) {
        if (!b.json) continue;
        const { start, end, value } = b.json;
        out.push({
          label: `${where} script #${i}`,
          root: value,
          put: (j) => setAt(bodies, slot.path, replaceRange(html, start, end, embedJson(j))),
        });
      }
    }
  }
  return out;
}

/** Every concrete path of a document (not only one per normalised path), spread down to `max`. */
export function concretePaths(root: Json, max = 4000): Path[] {
  const out: Path[] = [];
  const walk = (v: Json, path: Path) => {
    if (path.length > 0) out.push(path);
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
  };
  walk(root, []);
  return spread(out, max);
}
