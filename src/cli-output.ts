/**
 * How CLI commands print what they list: a table when a person reads it (stdout is a terminal, or `--table`), JSON
 * for scripts (stdout is a pipe or file, or `--json`). Keys are snake_case either way, as the HTTP API writes them.
 */
import { UsageError } from './usage-error.js';

export type OutputFormat = 'table' | 'json';

/** Takes `--json` / `--table` out of `args`; without either, a terminal gets a table and anything else JSON. */
export function takeFormat(
  args: string[],
  isTerminal = process.stdout.isTTY === true,
): {
  args: string[];
  format: OutputFormat;
} {
  const json = args.includes('--json');
  const table = args.includes('--table');
  if (json && table) throw new UsageError('--json and --table exclude each other');
  const rest = args.filter((a) => a !== '--json' && a !== '--table');
  return { args: rest, format: json ? 'json' : table ? 'table' : isTerminal ? 'table' : 'json' };
}

/** `nextRunAt` → `next_run_at`, on an object's own keys (values, such as a lookup's parameters, stay as they are). */
export function snakeCaseKeys<T extends Record<string, unknown>>(record: T): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(record).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]),
  );
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Rows as aligned columns under their names (every row's keys, in first-seen order). */
export function table(rows: readonly Record<string, unknown>[]): string {
  if (rows.length === 0) return '(none)';
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cells = [columns, ...rows.map((r) => columns.map((c) => cellText(r[c])))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => line[i]!.length)));
  return cells
    .map((line) =>
      line
        .map((text, i) => text.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** A list: a table, or a JSON array. */
export function printRows(rows: readonly Record<string, unknown>[], format: OutputFormat): void {
  console.log(format === 'json' ? JSON.stringify(rows, null, 2) : table(rows));
}

/** One record: `name  value` lines, or a JSON object. */
export function printRecord(record: Record<string, unknown>, format: OutputFormat): void {
  if (format === 'json') {
    console.log(JSON.stringify(record, null, 2));
    return;
  }
  const width = Math.max(...Object.keys(record).map((k) => k.length));
  for (const [k, v] of Object.entries(record)) console.log(`${k.padEnd(width)}  ${cellText(v)}`);
}
