/** Small numeric helpers shared by the figures. */

/** The q-quantile (0..1) of samples, nearest-rank. @example quantile([1, 2, 3, 4], 0.5) // 2 */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

export function median(samples: readonly number[]): number {
  return quantile(samples, 0.5);
}

/** Rounds for tables and JSON: 2 significant decimals below 10, 1 below 1000, integers above. */
export function round(n: number): number {
  if (!Number.isFinite(n)) return n;
  const abs = Math.abs(n);
  const digits = abs < 10 ? 2 : abs < 1000 ? 1 : 0;
  return Number(n.toFixed(digits));
}

export const mb = (bytes: number): number => round(bytes / (1024 * 1024));

/** A positive integer from the environment, else the default. */
export function envInt(name: string, fallback: number): number {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${v}"`);
  return Math.round(n);
}

/** Prints rows as an aligned text table. */
export function table(headers: string[], rows: Array<Array<string | number>>): string {
  const cells = [headers, ...rows.map((r) => r.map((c) => String(c)))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(cells[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}
