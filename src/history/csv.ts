/** RFC 4180 CSV for spreadsheets: a header row, CRLF line ends, fields quoted when they need it. */
export function toCsv(rows: Array<Record<string, unknown>>, columns?: string[]): string {
  const cols = columns ?? [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const lines = [cols.map(cell).join(',')];
  for (const r of rows) lines.push(cols.map((c) => cell(r[c])).join(','));
  return lines.join('\r\n') + '\r\n';
}

/** A decimal number as JSON and spreadsheets write one, sign included: nothing after it to evaluate. */
const PLAIN_NUMBER = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;

function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = Array.isArray(v) ? v.join(' ') : typeof v === 'object' ? JSON.stringify(v) : String(v);
  // A leading = + - @ tab or CR would run as a formula in a spreadsheet: quote-prefix it (OWASP CSV injection).
  // A whole number (a negative price change, or PostgreSQL NUMERIC handed over as text) is no formula and stays a
  // number; `-2+3+cmd|x` only starts like one.
  const safe = /^[=+\-@\t\r]/.test(s) && !PLAIN_NUMBER.test(s) ? `'${s}` : s;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** CSV when asked for by `format=csv` or an Accept header preferring text/csv. */
export function wantsCsv(format: unknown, accept: string | undefined): boolean {
  if (format === 'csv') return true;
  if (format !== undefined) return false;
  return /\btext\/csv\b/i.test(accept ?? '') && !/^\s*application\/json/i.test(accept ?? '');
}
