/**
 * The request mix of the load test (bench/load.ts, 500 connections × 30 s) and of its short version in `npm test`
 * (test/load-short.test.ts): cached, uncached (a fresh key per request, forcing a live fetch), invalid (bad
 * parameter, unknown parameter, wrong API key) and rate-limited (a key with a small rate) requests, each class with
 * the statuses it may answer. Anything else — a 5xx above all — is an unintended status.
 */
import type autocannon from 'autocannon';
import { TEST_KEY } from '../test/support/app.js';

export interface MixClass {
  name: string;
  /** Statuses this class may answer. */
  allowed: readonly number[];
  /** Statuses that must each be seen at least once (the class did what it is for). */
  required: readonly number[];
  /** How many of each cycle of the mix are this class. */
  weight: number;
  path(n: number): string;
  headers: Record<string, string>;
}

/** The fake marketplace answers these (see bench/lib/service-child.ts and the short test). */
export const PRICES = '/api/v1/scraper/resale-b/prices';
export const FINDER = '/api/v2/finder/watchmarket-search';

/**
 * The classes; `limitedKey` is a key created with a small rate (e.g. 10/s).
 * @example mixClasses('ml_…').map((c) => c.name) // ['cached', 'cached-finder', 'uncached', …]
 */
export function mixClasses(limitedKey: string, weights: Partial<Record<string, number>> = {}): MixClass[] {
  const ok = { 'x-api-key': TEST_KEY };
  const classes: MixClass[] = [
    { name: 'cached', allowed: [200], required: [200], weight: 3, path: () => `${PRICES}?query=1341930`, headers: ok },
    {
      name: 'cached-finder',
      allowed: [200],
      required: [200],
      weight: 1,
      path: () => `${FINDER}?query=dial`,
      headers: ok,
    },
    // A fresh product id per request: never cached, never shared, always a live fetch.
    {
      name: 'uncached',
      allowed: [200],
      required: [200],
      weight: 2,
      path: (n) => `${PRICES}?query=${7_000_000 + n}`,
      headers: ok,
    },
    {
      name: 'invalid-param',
      allowed: [400],
      required: [400],
      weight: 1,
      // Neither a GOAT id nor a SKU or slug (those resolve through GOAT search): a 400 without an upstream request.
      path: () => `${PRICES}?query=%3Cabc%3E`,
      headers: ok,
    },
    {
      name: 'unknown-param',
      allowed: [400],
      required: [400],
      weight: 1,
      path: () => `${PRICES}?query=1341930&colour=red`,
      headers: ok,
    },
    {
      name: 'wrong-key',
      allowed: [401],
      required: [401],
      weight: 1,
      path: () => `${PRICES}?query=1341930`,
      headers: { 'x-api-key': 'ml_not_a_real_key_0000000000000000' },
    },
    {
      name: 'rate-limited',
      allowed: [200, 429],
      required: [429],
      weight: 1,
      path: () => `${PRICES}?query=1341930`,
      headers: { 'x-api-key': limitedKey },
    },
  ];
  return classes.map((c) => ({ ...c, weight: weights[c.name] ?? c.weight }));
}

export interface Histogram {
  /** class → status → count */
  byClass: Record<string, Record<string, number>>;
  /** class → unintended status → count */
  unintended: Record<string, Record<string, number>>;
  /** The first few bodies of unintended answers, to say why. */
  samples: string[];
  total: number;
}

/**
 * autocannon `requests` cycling through the classes by weight, recording each answer's status into `hist`.
 * Each connection walks the list in order; the uncached class numbers its requests so keys never repeat.
 */
export function mixRequests(classes: MixClass[], hist: Histogram): autocannon.Request[] {
  let n = 0;
  const out: autocannon.Request[] = [];
  for (const c of classes) {
    hist.byClass[c.name] ??= {};
    for (let i = 0; i < c.weight; i++) {
      out.push({
        method: 'GET',
        path: c.path(0),
        headers: c.headers,
        setupRequest: (req) => ({ ...req, path: c.path(n++) }),
        onResponse: (status: number, body: string) => record(hist, c, status, body),
      });
    }
  }
  // Interleave the classes rather than running each weight in a row.
  return interleave(out);
}

function record(hist: Histogram, c: MixClass, status: number, body: string): void {
  const s = String(status);
  const cls = (hist.byClass[c.name] ??= {});
  cls[s] = (cls[s] ?? 0) + 1;
  hist.total++;
  if (!c.allowed.includes(status)) {
    const u = (hist.unintended[c.name] ??= {});
    u[s] = (u[s] ?? 0) + 1;
    if (hist.samples.length < 5) hist.samples.push(`${c.name} ${status}: ${String(body).slice(0, 300)}`);
  }
}

function interleave<T>(items: T[]): T[] {
  // A fixed stride permutation: deterministic and spreads equal neighbours apart.
  const stride = items.length > 2 ? 3 : 1;
  const out: T[] = [];
  const used = new Set<number>();
  for (let i = 0, at = 0; i < items.length; i++) {
    while (used.has(at)) at = (at + 1) % items.length;
    used.add(at);
    out.push(items[at]!);
    at = (at + stride) % items.length;
  }
  return out;
}

export function emptyHistogram(): Histogram {
  return { byClass: {}, unintended: {}, samples: [], total: 0 };
}

/** Problems with a finished run: unintended statuses, classes that never did their job, transport errors. */
export function mixProblems(
  classes: MixClass[],
  hist: Histogram,
  result: Pick<autocannon.Result, 'errors' | 'timeouts'>,
): string[] {
  const problems: string[] = [];
  for (const [cls, statuses] of Object.entries(hist.unintended))
    problems.push(`${cls}: unintended ${JSON.stringify(statuses)}`);
  for (const c of classes) {
    for (const s of c.required) if (!hist.byClass[c.name]?.[String(s)]) problems.push(`${c.name}: never answered ${s}`);
  }
  if (result.errors > 0 || result.timeouts > 0)
    problems.push(`transport: ${result.errors} errors, ${result.timeouts} timeouts`);
  return problems;
}
