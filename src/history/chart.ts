/**
 * The series as an SVG line chart a person can open: one line per size/kind, a y axis in the currency, an x axis
 * in UTC dates, a legend. Plain SVG, no script, every text escaped (labels come from marketplaces).
 */
import type { Series } from './series.js';

const W = 900;
const H = 480;
const M = { left: 80, right: 220, top: 40, bottom: 60 };
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22'];
/** More lines than this are unreadable: the rest are named in a note instead of drawn. */
const MAX_LINES = 10;

export function seriesLabel(s: Series): string {
  return [s.size === null ? 'all sizes' : `size ${s.size}`, s.kind.replace(/_/g, ' '), s.condition].filter(Boolean).join(' · ');
}

export function renderChart(series: Series[], title: string, interval: string | undefined): string {
  const drawn = series.filter((s) => s.points.length > 0).slice(0, MAX_LINES);
  const pts = drawn.flatMap((s) => s.points.map((p) => ({ t: Date.parse(p.t), v: p.last })));
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="${M.left}" y="24" font-size="16" font-weight="bold">${esc(title)}</text>`,
  ];
  if (pts.length === 0) {
    out.push(`<text x="${W / 2}" y="${H / 2}" text-anchor="middle" fill="#555">No prices recorded for this lookup in this period</text></svg>`);
    return out.join('\n');
  }
  const currencies = [...new Set(drawn.map((s) => s.currency))];
  let [t0, t1] = [Math.min(...pts.map((p) => p.t)), Math.max(...pts.map((p) => p.t))];
  if (t0 === t1) [t0, t1] = [t0 - 3_600_000, t1 + 3_600_000];
  let [v0, v1] = [Math.min(...pts.map((p) => p.v)), Math.max(...pts.map((p) => p.v))];
  const pad = (v1 - v0) * 0.08 || Math.max(1, v1 * 0.05);
  [v0, v1] = [Math.max(0, v0 - pad), v1 + pad];
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const x = (t: number) => M.left + ((t - t0) / (t1 - t0)) * pw;
  const y = (v: number) => M.top + ph - ((v - v0) / (v1 - v0)) * ph;

  // Axes and grid.
  out.push(`<line x1="${M.left}" y1="${M.top + ph}" x2="${M.left + pw}" y2="${M.top + ph}" stroke="#333"/>`);
  out.push(`<line x1="${M.left}" y1="${M.top}" x2="${M.left}" y2="${M.top + ph}" stroke="#333"/>`);
  for (let i = 0; i <= 5; i++) {
    const v = v0 + ((v1 - v0) * i) / 5;
    out.push(`<line x1="${M.left}" y1="${y(v).toFixed(1)}" x2="${M.left + pw}" y2="${y(v).toFixed(1)}" stroke="#eee"/>`);
    out.push(`<text x="${M.left - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${esc(fmtAmount(v))}</text>`);
  }
  out.push(
    `<text x="18" y="${M.top + ph / 2}" transform="rotate(-90 18 ${M.top + ph / 2})" text-anchor="middle" font-weight="bold">Price (${esc(currencies.join(', '))})</text>`,
  );
  const withTime = interval === 'hour' || t1 - t0 < 3 * 86_400_000;
  for (let i = 0; i <= 5; i++) {
    const t = t0 + ((t1 - t0) * i) / 5;
    const d = new Date(t).toISOString();
    const label = withTime ? `${d.slice(5, 10)} ${d.slice(11, 16)}` : d.slice(0, 10);
    out.push(`<line x1="${x(t).toFixed(1)}" y1="${M.top + ph}" x2="${x(t).toFixed(1)}" y2="${M.top + ph + 5}" stroke="#333"/>`);
    out.push(`<text x="${x(t).toFixed(1)}" y="${M.top + ph + 20}" text-anchor="middle">${label}</text>`);
  }
  out.push(`<text x="${M.left + pw / 2}" y="${H - 14}" text-anchor="middle" font-weight="bold">Date (UTC)</text>`);

  drawn.forEach((s, i) => {
    const color = COLORS[i % COLORS.length]!;
    const coords = s.points.map((p) => `${x(Date.parse(p.t)).toFixed(1)},${y(p.last).toFixed(1)}`);
    out.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${coords.join(' ')}"/>`);
    for (const c of coords) {
      const [cx, cy] = c.split(',');
      out.push(`<circle cx="${cx}" cy="${cy}" r="2.5" fill="${color}"/>`);
    }
    const ly = M.top + 10 + i * 20;
    out.push(`<line x1="${W - M.right + 16}" y1="${ly}" x2="${W - M.right + 36}" y2="${ly}" stroke="${color}" stroke-width="3"/>`);
    out.push(`<text x="${W - M.right + 42}" y="${ly + 4}">${esc(`${seriesLabel(s)} (${s.currency})`)}</text>`);
  });
  const hidden = series.length - drawn.length;
  if (hidden > 0) out.push(`<text x="${W - M.right + 16}" y="${M.top + 10 + drawn.length * 20 + 4}" fill="#555">+${hidden} more (filter by size or kind)</text>`);
  out.push('</svg>');
  return out.join('\n');
}

function fmtAmount(v: number): string {
  return v >= 1000 ? Math.round(v).toLocaleString('en-US') : v.toFixed(v < 10 ? 2 : 0);
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
