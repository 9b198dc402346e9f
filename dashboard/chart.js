// A small SVG time-series chart made for this page: one line per series, a time axis, a price axis, and a cursor
// (mouse, touch or arrow keys) whose tooltip lists every line's value at that time, each with its currency.
import { dateTime, money } from './format.js';
import { h } from './dom.js';

const SVG = 'http://www.w3.org/2000/svg';
/** Colours with at least 3:1 contrast on white, told apart by dash patterns too. */
const COLOURS = ['#1f5fbf', '#b3261e', '#1b7a3a', '#8a4b00', '#6a3d9a', '#00707a'];
const DASHES = ['', '6 3', '2 3', '8 3 2 3', '4 4', '1 2'];
const H = 280;
const PAD = { left: 92, right: 16, top: 16, bottom: 32 };
/** Narrower drawing on a phone, so its text stays readable when scaled to the screen. */
const narrow = () => window.matchMedia('(max-width: 40rem)').matches;

/**
 * @typedef {{ t: number, v: number }} Point
 * @typedef {{ label: string, currency: string, points: Point[] }} Line
 */

/** @param {string} tag @param {Record<string, string | number>} attrs */
function svg(tag, attrs) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

/**
 * @param {Line[]} lines
 * @param {{ title: string, from: number, to: number }} options
 * @returns {HTMLElement}
 */
export function lineChart(lines, options) {
  const W = narrow() ? 420 : 720;
  const withPoints = lines.filter((l) => l.points.length > 0);
  const figure = h('figure', { class: 'chart' });
  if (withPoints.length === 0) {
    figure.append(h('p', { class: 'chart-empty' }, 'No prices recorded in this range yet.'));
    return figure;
  }
  const values = withPoints.flatMap((l) => l.points.map((p) => p.v));
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (lo === hi) [lo, hi] = [lo * 0.95, hi * 1.05 || 1];
  const span = hi - lo;
  lo -= span * 0.05;
  hi += span * 0.05;
  const times = [...new Set(withPoints.flatMap((l) => l.points.map((p) => p.t)))].sort((a, b) => a - b);
  const t0 = Math.min(options.from, times[0] ?? options.from);
  const t1 = Math.max(options.to, times.at(-1) ?? options.to);
  const x = (/** @type {number} */ t) => PAD.left + ((t - t0) / (t1 - t0 || 1)) * (W - PAD.left - PAD.right);
  const y = (/** @type {number} */ v) => PAD.top + (1 - (v - lo) / (hi - lo)) * (H - PAD.top - PAD.bottom);
  const currency = withPoints[0]?.currency ?? '';

  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart-svg', role: 'img', 'aria-hidden': 'true' });
  for (let i = 0; i <= 4; i++) {
    const v = lo + ((hi - lo) * i) / 4;
    root.append(svg('line', { x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v), class: 'grid' }));
    const label = svg('text', { x: PAD.left - 6, y: y(v) + 4, 'text-anchor': 'end', class: 'axis' });
    label.textContent = money(Math.round(v * 100) / 100, currency);
    root.append(label);
  }
  for (const t of [t0, (t0 + t1) / 2, t1]) {
    const label = svg('text', {
      x: x(t),
      y: H - 8,
      'text-anchor': t === t0 ? 'start' : t === t1 ? 'end' : 'middle',
      class: 'axis',
    });
    label.textContent = new Date(t).toISOString().slice(0, 10);
    root.append(label);
  }
  withPoints.forEach((line, i) => {
    const d = line.points.map((p, j) => `${j === 0 ? 'M' : 'L'}${x(p.t).toFixed(1)},${y(p.v).toFixed(1)}`).join(' ');
    root.append(
      svg('path', {
        d,
        fill: 'none',
        stroke: COLOURS[i % COLOURS.length] ?? '#000',
        'stroke-width': 2,
        'stroke-dasharray': DASHES[i % DASHES.length] ?? '',
      }),
    );
    for (const p of line.points.length === 1 ? line.points : [])
      root.append(svg('circle', { cx: x(p.t), cy: y(p.v), r: 3, fill: COLOURS[i % COLOURS.length] ?? '#000' }));
  });
  const rule = svg('line', { y1: PAD.top, y2: H - PAD.bottom, class: 'rule', visibility: 'hidden' });
  root.append(rule);

  const tooltip = h('div', { class: 'tooltip', role: 'status', 'aria-live': 'polite', hidden: true });
  const surface = h(
    'div',
    {
      class: 'chart-surface',
      tabindex: 0,
      role: 'group',
      'aria-label': `${options.title}. Use the left and right arrow keys to read the prices at each time.`,
    },
    root,
    tooltip,
  );
  surface.style.aspectRatio = `${W} / ${H}`;
  let index = -1;
  /** @param {number} i */
  const show = (i) => {
    index = Math.max(0, Math.min(times.length - 1, i));
    const t = times[index] ?? t0;
    rule.setAttribute('x1', String(x(t)));
    rule.setAttribute('x2', String(x(t)));
    rule.setAttribute('visibility', 'visible');
    const rows = withPoints.map((line, li) => {
      const at = lastAtOrBefore(line.points, t);
      return h(
        'li',
        {},
        h('span', { class: 'swatch', style: undefined, 'data-colour': li % COLOURS.length }),
        `${line.label}: `,
        h('strong', {}, at ? money(at.v, line.currency) : '—'),
      );
    });
    tooltip.replaceChildren(h('p', {}, dateTime(t)), h('ul', {}, ...rows));
    tooltip.hidden = false;
    const left = (x(t) / W) * 100;
    tooltip.style.left = left > 60 ? '' : `${left + 2}%`;
    tooltip.style.right = left > 60 ? `${100 - left + 2}%` : '';
  };
  const hide = () => {
    rule.setAttribute('visibility', 'hidden');
    tooltip.hidden = true;
  };
  surface.addEventListener('pointermove', (e) => {
    const box = root.getBoundingClientRect();
    const px = ((e.clientX - box.left) / box.width) * W;
    let best = 0;
    times.forEach((t, i) => {
      if (Math.abs(x(t) - px) < Math.abs(x(times[best] ?? t) - px)) best = i;
    });
    show(best);
  });
  surface.addEventListener('pointerleave', hide);
  surface.addEventListener('blur', hide);
  surface.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
      e.preventDefault();
      show(index < 0 ? times.length - 1 : index + (e.key === 'ArrowRight' ? 1 : -1));
    } else if (e.key === 'Home' || e.key === 'End') {
      e.preventDefault();
      show(e.key === 'Home' ? 0 : times.length - 1);
    } else if (e.key === 'Escape') hide();
  });
  const legend = h(
    'ul',
    { class: 'legend' },
    ...withPoints.map((line, i) =>
      h('li', {}, h('span', { class: 'swatch', 'data-colour': i % COLOURS.length }), line.label),
    ),
  );
  figure.append(surface, legend, h('figcaption', { class: 'visually-hidden' }, options.title));
  return figure;
}

/** @param {Point[]} points @param {number} t */
function lastAtOrBefore(points, t) {
  let found;
  for (const p of points) {
    if (p.t <= t) found = p;
    else break;
  }
  return found;
}

/**
 * A sparkline: the shape of one series, decorative (its numbers are beside it in the list).
 * @param {Point[]} points
 */
export function sparkline(points) {
  const root = svg('svg', { viewBox: '0 0 120 32', class: 'sparkline', 'aria-hidden': 'true', focusable: 'false' });
  if (points.length < 2) return root;
  const vs = points.map((p) => p.v);
  const lo = Math.min(...vs);
  const hi = Math.max(...vs);
  const t0 = points[0]?.t ?? 0;
  const t1 = points.at(-1)?.t ?? 1;
  const d = points
    .map((p, i) => {
      const px = ((p.t - t0) / (t1 - t0 || 1)) * 116 + 2;
      const py = 30 - ((p.v - lo) / (hi - lo || 1)) * 28;
      return `${i === 0 ? 'M' : 'L'}${px.toFixed(1)},${py.toFixed(1)}`;
    })
    .join(' ');
  root.append(svg('path', { d, fill: 'none', stroke: '#1f5fbf', 'stroke-width': 1.5 }));
  return root;
}
