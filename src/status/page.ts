/**
 * GET /status: the same figures as /api/v1/status as one self-contained HTML page (inline CSS, no script, no external
 * asset) that a person reads at a glance: one coloured row per marketplace, then one row per operation.
 */
import type { Marketplace } from '../marketplaces/catalog.js';
import type { NotableFailure } from './aggregator.js';
import type { MarketplaceStatus, OperationFigures, StatusView } from './view.js';

export interface StatusPageInput {
  total: StatusView;
  instances: number;
  shared: boolean;
}

type Health = 'ok' | 'degraded' | 'down' | 'idle';

/** Red when the breaker is open or most lookups fail; amber when some fail or the format changed lately. */
export function healthOf(s: MarketplaceStatus): Health {
  const w = s.windows['5m'];
  if (s.breaker?.state === 'open') return 'down';
  if (w.success_rate === null) return 'idle';
  if (w.success_rate < 0.5) return 'down';
  if (w.success_rate < 0.95) return 'degraded';
  return 'ok';
}

const LABEL: Record<Health, string> = { ok: 'answering', degraded: 'degraded', down: 'failing', idle: 'no lookups' };

export function renderStatusPage(input: StatusPageInput): string {
  const { total } = input;
  const mps = Object.entries(total.marketplaces) as [Marketplace, MarketplaceStatus][];
  const rows = mps.map(([mp, s]) => marketplaceRow(mp, s)).join('\n');
  const problemRows = mps
    .flatMap(([mp, s]) => [
      problemRow(mp, s, 'blocked', s.last_blocked),
      problemRow(mp, s, 'format changed', s.last_changed),
    ])
    .filter(Boolean);
  const problems = problemRows.length
    ? `<table><thead><tr><th>Marketplace</th><th>What</th><th>When</th><th>Operation</th><th>Reason</th></tr></thead><tbody>\n${problemRows.join('\n')}\n</tbody></table>`
    : '';
  const opRows = mps
    .flatMap(([, s]) => Object.entries(s.operations).map(([name, w]) => operationRow(name, w['5m'], w['1h'])))
    .join('\n');
  const scope = input.shared
    ? `${input.instances} instance${input.instances === 1 ? '' : 's'} (summed)`
    : 'this instance';
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="30"><title>marketlens status</title>
<style>
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;color:#1d2330;background:#f6f7f9}
h1{font-size:20px;margin:0 0 4px}h2{font-size:15px;margin:28px 0 8px}.meta{color:#5b6474;margin-bottom:16px}
table{border-collapse:collapse;background:#fff;box-shadow:0 1px 2px #0002;width:100%}
th,td{padding:7px 10px;text-align:left;border-bottom:1px solid #e6e8ec;white-space:nowrap}
th{font-size:12px;color:#5b6474;font-weight:600;background:#fafbfc}td.n{text-align:right;font-variant-numeric:tabular-nums}
.dot{display:inline-block;width:10px;height:10px;border-radius:50%;margin-right:6px;vertical-align:middle}
.ok .dot{background:#1a9e55}.degraded .dot{background:#e3a008}.down .dot{background:#d92d20}.idle .dot{background:#a0a7b4}
.down td.state{color:#b42318;font-weight:600}.degraded td.state{color:#975a06;font-weight:600}
.note{white-space:normal;color:#5b6474}td.bad{color:#b42318;font-weight:600}td.warn{color:#975a06;font-weight:600}
</style></head><body>
<h1>marketlens status</h1>
<div class="meta">Figures from ${esc(scope)} at ${esc(total.generated_at)} · last 5 minutes (last hour in brackets) · refreshes every 30 s · JSON: <code>/api/v1/status</code></div>
<table><thead><tr><th>Marketplace</th><th>State</th><th>Lookups</th><th>Success</th><th>From cache</th><th>Upstream p50 / p95</th><th>Tier answered</th><th>Requests / bytes per live lookup</th><th>Breaker</th></tr></thead>
<tbody>
${rows}
</tbody></table>
<h2>Last block and last format change</h2>
${problems || '<p class="meta">None since this instance started.</p>'}
<h2>Operations</h2>
<table><thead><tr><th>Operation</th><th>Lookups</th><th>Success</th><th>From cache</th><th>Lookup upstream p50 / p95</th><th>Tier answered</th><th>Requests / bytes per live lookup</th><th>Outcomes (5 min)</th></tr></thead>
<tbody>
${opRows}
</tbody></table>
</body></html>
`;
}

function marketplaceRow(mp: Marketplace, s: MarketplaceStatus): string {
  const w = s.windows['5m'];
  const h = s.windows['1h'];
  const health = healthOf(s);
  const up = w.upstream;
  const tiers = tierList(up.tiers);
  const breaker = s.breaker
    ? s.breaker.state === 'closed'
      ? 'closed'
      : `${s.breaker.state}${s.breaker.reopens_at ? ` until ${time(s.breaker.reopens_at)}` : ''}`
    : '—';
  return `<tr class="${health}" data-marketplace="${esc(mp)}"><td><span class="dot"></span>${esc(s.site)} <small>(${esc(mp)})</small></td>
<td class="state">${LABEL[health]}</td><td class="n">${w.lookups} (${h.lookups})</td><td class="n">${pct(w.success_rate)} (${pct(h.success_rate)})</td>
<td class="n">${pct(w.cache_share)}</td><td class="n">${ms(up.p50_ms)} / ${ms(up.p95_ms)}</td><td>${esc(tiers)}</td>
<td class="n">${num(up.requests_per_live_lookup)} / ${bytes(up.bytes_per_live_lookup)}</td><td>${esc(breaker)}</td></tr>`;
}

function operationRow(name: string, w: OperationFigures, h: OperationFigures): string {
  const outcomes =
    Object.entries(w.outcomes)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ') || '—';
  const up = w.upstream;
  return `<tr data-operation="${esc(name)}"><td>${esc(name)}</td><td class="n">${w.lookups} (${h.lookups})</td><td class="n">${pct(w.success_rate)} (${pct(h.success_rate)})</td><td class="n">${pct(w.cache_share)}</td>
<td class="n">${ms(up.p50_ms)} / ${ms(up.p95_ms)}</td><td>${esc(tierList(up.tiers))}</td><td class="n">${num(up.requests_per_live_lookup)} / ${bytes(up.bytes_per_live_lookup)}</td><td>${esc(outcomes)}</td></tr>`;
}

const tierList = (tiers: Record<string, number>) =>
  Object.entries(tiers)
    .filter(([, n]) => n > 0)
    .map(([t, n]) => `${t} ${n}`)
    .join(', ') || '—';

function problemRow(mp: Marketplace, s: MarketplaceStatus, what: string, f: NotableFailure | null): string {
  if (!f) return '';
  return `<tr data-problem="${esc(mp)}"><td>${esc(s.site)}</td><td class="${what === 'blocked' ? 'bad' : 'warn'}">${what}</td><td>${esc(time(f.at))}</td><td>${esc(f.operation)}</td><td class="note">${esc(f.reason)}</td></tr>`;
}

const pct = (x: number | null) => (x === null ? '—' : `${Math.round(x * 1000) / 10} %`);
const ms = (x: number | null) => (x === null ? '—' : `≤${x} ms`);
const num = (x: number | null) => (x === null ? '—' : String(x));
const bytes = (x: number | null) =>
  x === null
    ? '—'
    : x >= 1024 * 1024
      ? `${(x / 1048576).toFixed(1)} MB`
      : x >= 1024
        ? `${Math.round(x / 1024)} kB`
        : `${x} B`;
const time = (iso: string) => iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC');

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
