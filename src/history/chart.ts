/**
 * The series as an SVG line chart a person can open: one line per size/kind (or per marketplace × kind), a y axis in the currency, an x axis
 * in UTC dates, a legend. Plain SVG, no script, every text escaped (labels come from marketplaces).
 */
import type { Series } from './series.js';

const W = 900;
const PLOT_H = 380;
const M = { left: 80, right: 50, top: 40, bottom: 60 };
const LEGEND_ROW = 18;
const COLORS = [
  '#1f77b4',
  '#d62728',
  '#2ca02c',
  '#ff7f0e',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#17becf',
  '#7f7f7f',
  '#bcbd22',
];
/** More lines than this are unreadable: the rest are named in a note instead of drawn. */
const MAX_LINES = 10;

export function seriesLabel(s: Series): string {
  return [s.size === null ? 'all sizes' : `size ${s.size}`, s.kind.replace(/_/g, ' '), s.condition]
    .filter(Boolean)
    .join(' · ');
}

/**
 * `labelOf` names each line in the legend (default: size · kind · condition); a product's history across
 * marketplaces names the marketplace first.
 */
export function renderChart<S extends Series>(
  series: S[],
  title: string,
  interval: string | undefined,
  labelOf: (s: S) => string = seriesLabel,
): string {
  const drawn = series.filter((s) => s.points.length > 0).slice(0, MAX_LINES);
  const pts = drawn.flatMap((s) => s.points.map((p) => ({ t: Date.parse(p.t), v: p.last })));
  // The legend sits under the plot, one row per line, so long labels (GOAT conditions) never run off the picture.
  const hidden = series.length - drawn.length;
  const H = PLOT_H + M.top + M.bottom + (drawn.length + (hidden > 0 ? 1 : 0)) * LEGEND_ROW + 10;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="${M.left}" y="24" font-size="16" font-weight="bold">${esc(title)}</text>`,
  ];
  if (pts.length === 0) {
    out.push(
      `<text x="${W / 2}" y="${H / 2 - 20}" text-anchor="middle" fill="#555">No prices recorded for this lookup in this period</text></svg>`,
    );
    return out.join('\n');
  }
  const currencies = [...new Set(drawn.map((s) => s.currency))];
  let [t0, t1] = [Math.min(...pts.map((p) => p.t)), Math.max(...pts.map((p) => p.t))];
  if (t0 === t1) [t0, t1] = [t0 - 3_600_000, t1 + 3_600_000];
  const yTicks = niceTicks(Math.min(...pts.map((p) => p.v)), Math.max(...pts.map((p) => p.v)));
  const [v0, v1] = [yTicks[0]!, yTicks[yTicks.length - 1]!];
  const pw = W - M.left - M.right;
  const ph = PLOT_H;
  const x = (t: number) => M.left + ((t - t0) / (t1 - t0)) * pw;
  const y = (v: number) => M.top + ph - ((v - v0) / (v1 - v0)) * ph;

  // Axes and grid.
  out.push(`<line x1="${M.left}" y1="${M.top + ph}" x2="${M.left + pw}" y2="${M.top + ph}" stroke="#333"/>`);
  out.push(`<line x1="${M.left}" y1="${M.top}" x2="${M.left}" y2="${M.top + ph}" stroke="#333"/>`);
  for (const v of yTicks) {
    out.push(
      `<line x1="${M.left}" y1="${y(v).toFixed(1)}" x2="${M.left + pw}" y2="${y(v).toFixed(1)}" stroke="#eee"/>`,
    );
    out.push(`<text x="${M.left - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${esc(fmtAmount(v))}</text>`);
  }
  out.push(
    `<text x="18" y="${M.top + ph / 2}" transform="rotate(-90 18 ${M.top + ph / 2})" text-anchor="middle" font-weight="bold">Price (${esc(currencies.join(', '))})</text>`,
  );
  const withTime = interval === 'hour' || t1 - t0 < 3 * 86_400_000;
  for (const t of timeTicks(t0, t1, withTime)) {
    const d = new Date(t).toISOString();
    const label = withTime ? `${d.slice(5, 10)} ${d.slice(11, 16)}` : d.slice(0, 10);
    out.push(
      `<line x1="${x(t).toFixed(1)}" y1="${M.top + ph}" x2="${x(t).toFixed(1)}" y2="${M.top + ph + 5}" stroke="#333"/>`,
    );
    out.push(`<text x="${x(t).toFixed(1)}" y="${M.top + ph + 20}" text-anchor="middle">${label}</text>`);
  }
  out.push(
    `<text x="${M.left + pw / 2}" y="${M.top + PLOT_H + 42}" text-anchor="middle" font-weight="bold">Date (UTC)</text>`,
  );

  drawn.forEach((s, i) => {
    const color = COLORS[i % COLORS.length]!;
    const coords = s.points.map((p) => `${x(Date.parse(p.t)).toFixed(1)},${y(p.last).toFixed(1)}`);
    out.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${coords.join(' ')}"/>`);
    for (const c of coords) {
      const [cx, cy] = c.split(',');
      out.push(`<circle cx="${cx}" cy="${cy}" r="2.5" fill="${color}"/>`);
    }
    const ly = M.top + PLOT_H + M.bottom + 4 + i * LEGEND_ROW;
    out.push(`<line x1="${M.left}" y1="${ly}" x2="${M.left + 24}" y2="${ly}" stroke="${color}" stroke-width="3"/>`);
    out.push(`<text x="${M.left + 30}" y="${ly + 4}">${esc(`${labelOf(s)} (${s.currency})`)}</text>`);
  });
  if (hidden > 0)
    out.push(
      `<text x="${M.left}" y="${M.top + PLOT_H + M.bottom + 8 + drawn.length * LEGEND_ROW}" fill="#555">+${hidden} more lines (filter by size or kind)</text>`,
    );
  out.push('</svg>');
  return out.join('\n');
}

/** About six round y values (1, 2, 2.5 or 5 × 10^n apart) covering [lo, hi]. */
function niceTicks(lo: number, hi: number): number[] {
  if (lo === hi) [lo, hi] = [lo * 0.95, hi * 1.05 || 1];
  const raw = (hi - lo) / 5;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw)!;
  const ticks: number[] = [];
  for (let v = Math.floor(lo / step) * step; v <= hi + step * 1e-9; v += step) ticks.push(Number(v.toFixed(10)));
  if (ticks[ticks.length - 1]! < hi) ticks.push(ticks[ticks.length - 1]! + step);
  return ticks;
}

/** Up to ~7 x positions on whole days (or whole hours for short spans), so no date label repeats. */
function timeTicks(t0: number, t1: number, withTime: boolean): number[] {
  const unit = withTime ? 3_600_000 : 86_400_000;
  const step = Math.max(1, Math.ceil((t1 - t0) / unit / 6)) * unit;
  const ticks: number[] = [];
  for (let t = Math.ceil(t0 / unit) * unit; t <= t1; t += step) ticks.push(t);
  return ticks.length > 0 ? ticks : [t0];
}

function fmtAmount(v: number): string {
  return v >= 1000 ? Math.round(v).toLocaleString('en-US') : v.toFixed(v < 10 ? 2 : 0);
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
