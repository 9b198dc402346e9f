/**
 * `marketlens doctor`: one known, cheap lookup per operation, live, through the configured fetch tiers (or one tier),
 * each judged on its own: did it answer, which tier got through, how long, how many upstream requests and bytes, is
 * the record valid against its spec schema, and which fields came back null. The canaries run the same lookups.
 */
import type { Config, FetchTier } from '../config.js';
import { MarketlensError, isMarketlensError } from '../errors.js';
import { BUILT_IN_REGISTRY, type Registry } from '../operations/registry.js';
import type { AnyOperation } from '../operations/types.js';
import { createHttpClient } from '../upstream/create-client.js';
import type { HttpClient } from '../upstream/http-client.js';
import type { UpstreamEvent } from '../upstream/observer.js';
import { proxiesFor } from '../upstream/tiers.js';

/**
 * The parameters of the lookup the doctor and the canaries run for an operation: its own `probe` (a product or search
 * known to exist, cheap), else its documented example. Override one with `<operation>.<param>=<value>`.
 */
export function probeParams(op: AnyOperation): Record<string, string> {
  return op.probe ?? op.example?.params ?? {};
}

export interface DoctorRow {
  operation: string;
  ok: boolean;
  /** The error code (CONTRACT §3) when the lookup failed, `tier_unavailable` when the asked tier is not configured. */
  code: string | null;
  message: string | null;
  /** The fetch tier whose answer the lookup used (the last one that got an HTTP answer); null without upstream. */
  tier: FetchTier | null;
  ms: number;
  upstream_requests: number;
  bytes: number;
  /** Whether the parsed record matches the spec schema; null when nothing was parsed. */
  record_valid: boolean | null;
  /** Paths of record fields that came back null (array indices folded to `[]`); null without a record. */
  null_fields: string[] | null;
  /** Record parts left null because their own upstream source failed (a partial answer); null without a record. */
  missing_parts: string[] | null;
}

export interface DoctorOptions {
  /** Only this tier, for every marketplace (`--tier`). */
  tier?: FetchTier;
  /** Parameters that replace the probe's, by operation. */
  params?: Record<string, Record<string, string>>;
  /** Operations to run (default: all of the registry's). */
  operations?: string[];
  /** The marketplaces and operations to check (the built-in ones by default). */
  registry?: Registry;
  /** The client to use (tests, the canaries); by default one made from the configuration and closed afterwards. */
  http?: HttpClient;
  /** Receives this run's upstream events when `http` is given (the caller wired the client's observer to it). */
  events?: { listen(fn: (e: UpstreamEvent) => void): () => void };
}

/** The configuration with every marketplace limited to one tier. */
export function withOnlyTier(config: Config, tier: FetchTier): Config {
  const marketplaces = Object.fromEntries(
    Object.entries(config.marketplaces).map(([mp, c]) => [mp, { ...c, tiers: [tier] }]),
  ) as Config['marketplaces'];
  return { ...config, marketplaces };
}

/** Why `tier` cannot run for `mp` under `config`, or undefined when it can. */
export function tierUnavailable(config: Config, mp: string, tier: FetchTier): string | undefined {
  if (tier === 'proxy' && proxiesFor(config, mp).length === 0) return 'no proxies configured (MARKETLENS_PROXY_URLS)';
  if (tier === 'unblocker' && !config.unblockerUrl) return 'MARKETLENS_UNBLOCKER_URL is not set';
  if (tier === 'browser' && !config.browserPath) return 'no browser (MARKETLENS_BROWSER_PATH)';
  return undefined;
}

export async function runDoctor(base: Config, options: DoctorOptions = {}): Promise<DoctorRow[]> {
  const config = options.tier ? withOnlyTier(base, options.tier) : base;
  let current: ((e: UpstreamEvent) => void) | undefined;
  const registry = options.registry ?? BUILT_IN_REGISTRY;
  const own = options.http
    ? undefined
    : createHttpClient(config, { onUpstream: (e) => current?.(e) }, { marketplaces: registry.marketplaces });
  const stopListening = options.events?.listen((e) => current?.(e));
  const http = options.http ?? own!;
  const rows: DoctorRow[] = [];
  try {
    for (const name of options.operations ?? registry.operations.map((op) => op.name)) {
      const op = registry.operation(name);
      if (!op) throw new Error(`unknown operation ${name}`);
      const skip = options.tier ? tierUnavailable(config, op.marketplace, options.tier) : undefined;
      if (skip) {
        rows.push(emptyRow(name, 'tier_unavailable', `--tier ${options.tier}: ${skip}`));
        continue;
      }
      const tally = { requests: 0, bytes: 0, tier: null as FetchTier | null };
      current = (e) => {
        if (e.marketplace !== op.marketplace || e.tier === 'none') return;
        tally.requests += 1;
        tally.bytes += e.bytes ?? 0;
        if (e.outcome.startsWith('http_')) tally.tier = e.tier as FetchTier;
      };
      rows.push({
        ...(await checkOne(config, http, op, options.params?.[name])),
        tier: tally.tier,
        upstream_requests: tally.requests,
        bytes: tally.bytes,
      });
      current = undefined;
    }
  } finally {
    stopListening?.();
    await own?.close?.();
  }
  return rows;
}

type Checked = Omit<DoctorRow, 'tier' | 'upstream_requests' | 'bytes'>;

/** One lookup: fetch, parse, check the record against the spec schema (the service's own steps, each observed). */
async function checkOne(
  config: Config,
  http: HttpClient,
  op: AnyOperation,
  override?: Record<string, string>,
): Promise<Checked> {
  const name = op.name;
  const t0 = performance.now();
  const elapsed = () => Math.round(performance.now() - t0);
  const parsedParams = op.params.safeParse({ ...probeParams(op), ...override });
  if (!parsedParams.success) {
    const message = parsedParams.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    return {
      operation: name,
      ok: false,
      code: 'invalid_parameter',
      message,
      ms: 0,
      record_valid: null,
      null_fields: null,
      missing_parts: null,
    };
  }
  const params = parsedParams.data;
  let record: unknown;
  let missing: string[];
  try {
    const bodies = await op.fetch(
      { http, marketplace: op.marketplace, signal: AbortSignal.timeout(config.deadlineMs), config },
      params,
    );
    ({ record, missing } = op.parse(bodies, params));
  } catch (e) {
    const err = isMarketlensError(e)
      ? e
      : new MarketlensError('upstream_changed', `${name} parser failed: ${(e as Error).message}`);
    return {
      operation: name,
      ok: false,
      code: err.code,
      message: err.message,
      ms: elapsed(),
      record_valid: null,
      null_fields: null,
      missing_parts: null,
    };
  }
  const checked = op.record.safeParse(record);
  const nulls = nullPaths(record);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    return {
      operation: name,
      ok: false,
      code: 'upstream_changed',
      message: `record does not match the spec at ${issue?.path.join('.') || '(root)'}: ${issue?.message}`,
      ms: elapsed(),
      record_valid: false,
      null_fields: nulls,
      missing_parts: missing,
    };
  }
  return {
    operation: name,
    ok: true,
    code: null,
    message: null,
    ms: elapsed(),
    record_valid: true,
    null_fields: nulls,
    missing_parts: missing,
  };
}

function emptyRow(operation: string, code: string, message: string): DoctorRow {
  return {
    operation,
    ok: false,
    code,
    message,
    tier: null,
    ms: 0,
    upstream_requests: 0,
    bytes: 0,
    record_valid: null,
    null_fields: null,
    missing_parts: null,
  };
}

/** Paths of null leaves, array indices folded (`[].price`), each listed once, in record order. */
export function nullPaths(value: unknown, path = '', out = new Set<string>()): string[] {
  if (value === null) out.add(path || '(root)');
  else if (Array.isArray(value)) value.forEach((v) => nullPaths(v, `${path}[]`, out));
  else if (typeof value === 'object' && value !== undefined) {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) nullPaths(v, path ? `${path}.${k}` : k, out);
  }
  return [...out];
}

/** The table a person reads; failures carry their message on the next line. */
export function formatDoctorTable(rows: readonly DoctorRow[]): string {
  const header = ['operation', 'result', 'tier', 'ms', 'requests', 'bytes', 'valid', 'null fields'];
  const cells = rows.map((r) => [
    r.operation,
    r.ok ? (r.missing_parts?.length ? `ok, partial` : 'ok') : `FAILED ${r.code}`,
    r.tier ?? '-',
    String(r.ms),
    String(r.upstream_requests),
    String(r.bytes),
    r.record_valid === null ? '-' : r.record_valid ? 'yes' : 'NO',
    r.null_fields === null
      ? '-'
      : r.null_fields.length === 0
        ? '0'
        : `${r.null_fields.length}: ${abbreviate(r.null_fields)}`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) =>
    c
      .map((v, i) => (i === c.length - 1 ? v : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const out = [line(header), line(widths.map((w) => '-'.repeat(w)))];
  rows.forEach((r, i) => {
    out.push(line(cells[i]!));
    if (!r.ok && r.message) out.push(`    ↳ ${r.message}`);
    if (r.ok && r.missing_parts?.length) out.push(`    ↳ missing (their source failed): ${r.missing_parts.join(', ')}`);
  });
  const failed = rows.filter((r) => !r.ok).length;
  out.push('', failed === 0 ? `All ${rows.length} lookups answered.` : `${failed} of ${rows.length} lookups failed.`);
  return out.join('\n');
}

function abbreviate(paths: string[]): string {
  const shown = paths.slice(0, 3).join(', ');
  return paths.length > 3 ? `${shown}, …` : shown;
}
