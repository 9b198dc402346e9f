/**
 * Filter values by name: a user types `Rolex`, `black` or `A. Lange & Sohne`; Chrono24's URL takes only codes. The
 * match is exact on the label after folding case and accents (so nothing is guessed), and a miss answers with the
 * closest labels the catalog knows so the user can correct it.
 */

export interface LabelledValue {
  label: string;
  code: string;
  manufacturer?: string;
}

export type LabelMatch =
  | { kind: 'found'; code: string }
  /** The same label names several codes (the spec's two "Skeletonized" dial colours, a model of two brands). */
  | { kind: 'ambiguous'; candidates: LabelledValue[] }
  | { kind: 'unknown'; closest: LabelledValue[] };

/**
 * Case- and accent-folded label: `A. Lange & Söhne` and `a. lange & sohne` fold alike; spaces are collapsed.
 * @example foldLabel('  A. Lange &  Söhne ') // 'a. lange & sohne'
 */
export function foldLabel(s: string): string {
  return s.normalize('NFD').replace(/\p{M}/gu, '').replace(/ß/g, 'ss').toLowerCase().replace(/\s+/g, ' ').trim();
}

/** An index of one group's values by folded label, built once per catalog group. */
export class LabelIndex {
  private readonly byLabel = new Map<string, LabelledValue[]>();
  private readonly folded: Array<{ folded: string; value: LabelledValue }>;
  /** Most commas in one label: how many comma-separated pieces may have to be re-joined (bounds the work). */
  readonly maxCommas: number;

  constructor(readonly values: readonly LabelledValue[]) {
    this.folded = values.map((value) => ({ folded: foldLabel(value.label), value }));
    this.maxCommas = Math.max(0, ...values.map((v) => v.label.split(',').length - 1));
    for (const f of this.folded) {
      const list = this.byLabel.get(f.folded);
      if (list) list.push(f.value);
      else this.byLabel.set(f.folded, [f.value]);
    }
  }

  /** Values whose folded label equals the folded `text` exactly. */
  exact(text: string): LabelledValue[] {
    return this.byLabel.get(foldLabel(text)) ?? [];
  }

  /**
   * The label's code; `within` keeps only candidates of those brands (values without a known brand stay candidates).
   * @example index.match('rolex') // { kind: 'found', code: '221' }
   */
  match(text: string, within?: ReadonlySet<string>): LabelMatch {
    let hits = this.exact(text);
    if (within && within.size > 0)
      hits = hits.filter((h) => h.manufacturer === undefined || within.has(h.manufacturer));
    const codes = new Set(hits.map((h) => h.code));
    if (codes.size === 1) return { kind: 'found', code: hits[0]!.code };
    if (codes.size > 1) return { kind: 'ambiguous', candidates: hits };
    return { kind: 'unknown', closest: this.closest(text, within) };
  }

  /**
   * Up to `n` labels nearest to `text`: labels that start with or contain it first, then by edit distance.
   * @example index.closest('Rolx').map((v) => v.label)[0] // 'Rolex'
   */
  closest(text: string, within?: ReadonlySet<string>, n = 5): LabelledValue[] {
    const q = foldLabel(text);
    const pool =
      within && within.size > 0
        ? this.folded.filter((f) => f.value.manufacturer !== undefined && within.has(f.value.manufacturer))
        : this.folded;
    return pool
      .map((f) => ({
        value: f.value,
        score: f.folded.startsWith(q) ? -2 : f.folded.includes(q) ? -1 : editDistance(q, f.folded),
      }))
      .sort((a, b) => a.score - b.score || a.value.label.length - b.value.label.length)
      .slice(0, n)
      .map((s) => s.value);
  }
}

/**
 * Splits a comma list, re-joining pieces whose join is a known label (`Fold clasp, hidden` is one clasp label).
 * @example splitLabelList('Fold clasp, hidden, 502', index) // ['Fold clasp, hidden', '502']
 */
export function splitLabelList(raw: string, index: LabelIndex | undefined): string[] {
  const parts = raw.split(',').map((s) => s.trim());
  const out: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    let taken = parts[i]!;
    if (index && index.maxCommas > 0) {
      // Longest run of pieces that is one label wins (no label spans more than maxCommas + 1 pieces).
      for (let j = Math.min(parts.length - 1, i + index.maxCommas); j > i; j--) {
        const joined = parts.slice(i, j + 1).join(', ');
        if (index.exact(joined).length > 0) {
          taken = joined;
          i = j;
          break;
        }
      }
    }
    if (taken.length > 0) out.push(taken);
  }
  return out;
}

/** Levenshtein distance, two rows. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/** `Rolex (221)` for messages. */
export function describeValues(values: readonly LabelledValue[]): string {
  return values.map((v) => `${v.label} (${v.code})`).join(', ');
}
