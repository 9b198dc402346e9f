/**
 * The one reader of process.env: a zod schema over every MARKETLENS_* variable (and `.env`), parsed once at start-up.
 * A bad value stops the process with a message naming the variable. Everything else receives a typed `Config`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { z } from 'zod';
import { MARKETPLACE_DESCRIPTORS } from './marketplaces/catalog.js';
import { FETCH_TIERS } from './upstream/fetch-tier.js';
import type { MarketplaceDescriptor } from './marketplaces/descriptor.js';
import type { FetchTier } from './upstream/fetch-tier.js';

export { FETCH_TIERS, type FetchTier } from './upstream/fetch-tier.js';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** `60/min`, `10/s`, `1000/h`, `5000/day`, or `0` (unlimited) → requests per window. */
export const rateSpec = z
  .string()
  .trim()
  .regex(/^(0|\d+\/(s|sec|second|m|min|minute|h|hour|d|day))$/, 'expected e.g. 60/min, 10/s, 1000/h, or 0')
  .transform((v) => {
    if (v === '0') return null;
    const [n, unit] = v.split('/') as [string, string];
    const seconds = unit.startsWith('s') ? 1 : unit.startsWith('m') ? 60 : unit.startsWith('h') ? 3600 : 86400;
    return { points: Number(n), durationSeconds: seconds };
  });
export type RateSpec = z.output<typeof rateSpec>;

/** An upstream origin override: scheme, host and optional port only. http is allowed here (tests, mirrors). */
const origin = z
  .string()
  .url()
  .transform((v) => new URL(v))
  .refine((u) => (u.protocol === 'http:' || u.protocol === 'https:') && (u.pathname === '/' || u.pathname === ''), {
    message: 'expected an origin such as http://127.0.0.1:9000 (no path)',
  })
  .transform((u) => u.origin);

const urlList = z
  .string()
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .pipe(
    z.array(
      z.string().refine((s) => /^(https?|socks5h?|socks4):\/\/[^\s]+$/.test(s), {
        message: 'each proxy must be an http://, https:// or socks5:// URL',
      }),
    ),
  );

const commaList = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

const tierList = commaList.pipe(z.array(z.enum(FETCH_TIERS)).min(1));

/** Global variables. Per-marketplace ones are generated below from the marketplace descriptors. */
const globalShape = {
  MARKETLENS_HOST: z.string().min(1).default('0.0.0.0'),
  MARKETLENS_PORT: int(0, 65535).default(8080),
  /** Processes serving the port (node:cluster); 1 = one process, no cluster primary. */
  MARKETLENS_WORKERS: int(1, 256).default(1),
  MARKETLENS_DATA_DIR: z.string().min(1).default('./data'),
  MARKETLENS_API_KEYS: commaList.default([]),
  MARKETLENS_RATE_LIMIT: rateSpec.default({ points: 60, durationSeconds: 60 }),
  MARKETLENS_DAILY_QUOTA: int(0, 1e9).default(0),
  MARKETLENS_MONTHLY_QUOTA: int(0, 1e10).default(0),
  /** What to do with rate limits when Redis fails at runtime: keep serving (log loudly) or refuse. */
  MARKETLENS_RATE_LIMIT_ON_REDIS_ERROR: z.enum(['allow', 'deny']).default('allow'),
  /** PostgreSQL for keys, usage and every other state; unset = SQLite at <DATA_DIR>/marketlens.db. */
  /** Webhook targets: allow http:// URLs, and names/addresses in loopback, private or link-local ranges (tests, LANs). */
  MARKETLENS_WEBHOOK_ALLOW_HTTP: bool.default(false),
  MARKETLENS_WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  /** What one key may own: webhook subscriptions and tracked products (issue 27); creating more answers 409. */
  MARKETLENS_MAX_WEBHOOKS_PER_KEY: int(1, 1_000_000).default(100),
  MARKETLENS_MAX_TRACKED_PER_KEY: int(1, 1_000_000).default(1000),
  MARKETLENS_DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\/\S+$/, 'expected postgres://user@host:port/database')
    .optional(),
  /** Days of price history kept (issue 17); a daily prune deletes older rows. */
  MARKETLENS_HISTORY_RETENTION_DAYS: int(1, 36500).default(365),
  MARKETLENS_REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'expected redis://host:port')
    .optional(),
  /** Start of every key marketlens writes in Redis, so several deployments (or test runs) can share one server. */
  MARKETLENS_REDIS_PREFIX: z
    .string()
    .regex(/^[\w:.-]{1,64}$/, 'expected letters, digits, and : . _ -')
    .default('marketlens:'),
  MARKETLENS_PROXY_URLS: urlList.default([]),
  MARKETLENS_UNBLOCKER_URL: z
    .string()
    .refine(
      (v) => /^https?:\/\/\S+$/.test(v) && v.includes('{url}'),
      'expected an http(s) URL template containing {url}',
    )
    .optional(),
  MARKETLENS_REPLAY: z.string().min(1).optional(),
  MARKETLENS_RECORD_DIR: z.string().min(1).optional(),
  MARKETLENS_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  MARKETLENS_METRICS_PUBLIC: bool.default(false),
  /** On SIGTERM, how long to keep serving with /readyz at 503 before closing, so load balancers drain first (ms). */
  MARKETLENS_SHUTDOWN_DELAY_MS: int(0, 120_000).default(2_000),
  /** After the delay, how long in-flight requests may take before remaining connections are destroyed and the process exits (ms). */
  MARKETLENS_SHUTDOWN_TIMEOUT_MS: int(100, 600_000).default(30_000),
  /** A connection that has not completed a request within this time is closed (slow or silent clients, ms). */
  MARKETLENS_IDLE_TIMEOUT_MS: int(100, 600_000).default(10_000),
  /** A request (headers and body) must arrive in full within this time, else 408 (ms). */
  MARKETLENS_REQUEST_TIMEOUT_MS: int(100, 600_000).default(30_000),
  /** Concurrent client connections; past it a new connection gets a 503 and is closed. Keep it under `ulimit -n`. */
  MARKETLENS_MAX_CONNECTIONS: int(1, 1_000_000).default(4_096),
  /** One deadline for a whole lookup, from route to socket (ms). */
  MARKETLENS_DEADLINE_MS: int(100, 300_000).default(25_000),
  MARKETLENS_MAX_BODY_BYTES: int(1024, 512 * 1024 * 1024).default(20 * 1024 * 1024),
  /** Upstream attempts per fetch tier (first included) and the first backoff; backoff doubles with jitter. */
  MARKETLENS_RETRY_ATTEMPTS: int(1, 10).default(3),
  MARKETLENS_RETRY_BASE_MS: int(0, 60_000).default(250),
  /** Per-attempt upstream timeout when a marketplace sets none (ms); the lookup deadline bounds it too. */
  MARKETLENS_ATTEMPT_TIMEOUT_MS: int(100, 300_000).default(10_000),
  /** Circuit breaker: consecutive failed lookups that open a marketplace's circuit, and how long it stays open. */
  MARKETLENS_BREAKER_THRESHOLD: int(1, 10_000).default(5),
  MARKETLENS_BREAKER_COOLDOWN_MS: int(100, 3_600_000).default(30_000),
  /** How long a failing proxy rests before it is used again (ms). */
  MARKETLENS_PROXY_REST_MS: int(0, 3_600_000).default(60_000),
  MARKETLENS_TTL_PRICES: int(0, 31_536_000).default(60),
  MARKETLENS_TTL_PRODUCTS: int(0, 31_536_000).default(900),
  MARKETLENS_TTL_SEARCHES: int(0, 31_536_000).default(300),
  MARKETLENS_TTL_FINDER: int(0, 31_536_000).default(86_400),
  /** How old a cached answer may be and still be served when the live fetch fails (seconds; 0 = never). */
  MARKETLENS_STALE_IF_ERROR: int(0, 31_536_000).default(86_400),
  MARKETLENS_CACHE_MAX_BYTES: int(1024 * 1024, 64 * 1024 * 1024 * 1024).default(256 * 1024 * 1024),
  MARKETLENS_BROWSER_PATH: z.string().min(1).optional(),
  MARKETLENS_BROWSER_POOL_SIZE: int(1, 64).default(4),
  /** Base URL clients reach the service at, for OpenAPI `servers` (default: the scheme and Host of each request). */
  MARKETLENS_PUBLIC_URL: z
    .string()
    .url()
    .refine((v) => /^https?:\/\//.test(v), 'expected an http(s) URL such as https://api.example.com')
    .transform((v) => v.replace(/\/+$/, ''))
    .optional(),
  /** GOAT product keys: the spec's snake_case, or GOAT's own camelCase as Retailed served it in 2024. */
  MARKETLENS_RESALE_B_PRODUCT_KEYS: z.enum(['snake', 'camel']).default('snake'),
  /** Worker threads that parse big upstream pages off the event loop (0 = parse everything inline). */
  MARKETLENS_PARSE_THREADS: int(0, 64).default(2),
  /** Upstream bodies from this size (characters) on are parsed in a worker thread. */
  MARKETLENS_PARSE_OFF_THREAD_BYTES: int(0, 1024 * 1024 * 1024).default(1024 * 1024),
  /** How often the doctor's lookups run as canaries feeding /api/v1/status: `off`, or e.g. `300`, `30s`, `5m`, `1h`. */
  MARKETLENS_CANARY_INTERVAL: z
    .string()
    .trim()
    .regex(/^(off|\d+(s|m|h)?)$/, 'expected off, or seconds such as 300, 30s, 5m, 1h')
    .transform((v) =>
      v === 'off' ? null : Number.parseInt(v, 10) * ({ s: 1, m: 60, h: 3600 }[v.slice(-1)] ?? 1) * 1000,
    )
    .refine((ms) => ms === null || ms >= 1000, 'the interval must be at least 1 s')
    .default(null),
};

/**
 * Per-marketplace variables: MARKETLENS_<MP>_ORIGIN, _TIMEOUT_MS, _CONCURRENCY, _MIN_INTERVAL_MS, _MAX_QUEUE,
 * _SCHEDULED_MAX_QUEUE, _TIERS, _PROXY_URLS.
 */
function marketplaceShape(mp: Pick<MarketplaceDescriptor, 'envName' | 'settings'>) {
  const p = `MARKETLENS_${mp.envName}_`;
  return {
    ...mp.settings,
    [`${p}ORIGIN`]: origin.optional(),
    [`${p}TIMEOUT_MS`]: int(100, 300_000).optional(),
    [`${p}CONCURRENCY`]: int(1, 1000).default(8),
    [`${p}MIN_INTERVAL_MS`]: int(0, 60_000).default(0),
    [`${p}MAX_QUEUE`]: int(0, 100_000).default(200),
    // Scheduled lookups (tracked products, canaries) wait in a queue of their own: nobody waits on them, so a few
    // suffice to keep the slots busy between scheduler passes, and past it a refresh waits for its next interval.
    [`${p}SCHEDULED_MAX_QUEUE`]: int(0, 100_000).default(16),
    [`${p}TIERS`]: tierList.optional(),
    [`${p}PROXY_URLS`]: urlList.optional(),
  } as Record<string, z.ZodType>;
}

function envSchemaFor(marketplaces: readonly Pick<MarketplaceDescriptor, 'envName' | 'settings'>[]) {
  return z.object({ ...globalShape, ...Object.assign({}, ...marketplaces.map(marketplaceShape)) });
}
const envSchema = envSchemaFor(MARKETPLACE_DESCRIPTORS);

export interface MarketplaceConfig {
  /** Replaces scheme/host/port of every upstream URL (tests, mirrors); undefined = the real site. */
  origin?: string;
  /** Per-attempt timeout (ms); the lookup deadline still bounds the whole lookup. */
  timeoutMs?: number;
  concurrency: number;
  minIntervalMs: number;
  /** Interactive lookups that may wait for a slot. */
  maxQueue: number;
  /** Scheduled lookups that may wait for a slot (a queue of their own). */
  scheduledMaxQueue: number;
  /** Fetch tiers in order; default: direct, then proxy and unblocker when configured. */
  tiers?: FetchTier[];
  proxyUrls?: string[];
  /** The marketplace's own variables (its descriptor's `settings`), by full name. */
  settings: Record<string, unknown>;
}

/** The variables every deployment has (the marketplaces' own come from their descriptors), as the schema parses them. */
type GlobalEnv = z.output<z.ZodObject<typeof globalShape>>;

/** The service's configuration: its type is what `configFrom` builds from the schema's output, never written twice. */
export type Config = ReturnType<typeof configFrom>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Reads `.env` from the working directory (if any); real environment variables win over it. */
export function readEnv(cwd = process.cwd()): Record<string, string | undefined> {
  const file = resolve(cwd, '.env');
  const fromFile = existsSync(file) ? parseDotenv(readFileSync(file)) : {};
  return { ...fromFile, ...process.env };
}

/**
 * Validates the MARKETLENS_* variables of `env` and returns the typed configuration.
 * @example loadConfig({ MARKETLENS_PORT: '9000' }).port // 9000
 */
export function loadConfig(
  env: Record<string, string | undefined> = readEnv(),
  /** The marketplaces whose MARKETLENS_<MP>_* variables exist (a registry with a runtime-added one passes its list). */
  descriptors: readonly Pick<MarketplaceDescriptor, 'id' | 'envName' | 'settings'>[] = MARKETPLACE_DESCRIPTORS,
): Config {
  const schema = descriptors === MARKETPLACE_DESCRIPTORS ? envSchema : envSchemaFor(descriptors);
  const relevant: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    // An empty variable means "not set", as in most twelve-factor services.
    if (k.startsWith('MARKETLENS_') && v !== undefined && v !== '') relevant[k] = v;
  }
  const unknown = Object.keys(relevant).filter((k) => !(k in schema.shape));
  if (unknown.length > 0) {
    throw new ConfigError(`Unknown configuration variable ${unknown.join(', ')} (see README, "Configuration")`);
  }
  const parsed = schema.safeParse(relevant);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${String(i.path[0])}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data as GlobalEnv & Record<string, unknown>;
  const marketplaces: Record<string, MarketplaceConfig> = {};
  for (const mp of descriptors) {
    const p = `MARKETLENS_${mp.envName}_`;
    // Names built at run time (one set per descriptor): typed by marketplaceShape's schemas, cast once here.
    const v = <K extends keyof MarketplaceConfig>(suffix: string) => e[`${p}${suffix}`] as MarketplaceConfig[K];
    marketplaces[mp.id] = {
      origin: v<'origin'>('ORIGIN'),
      timeoutMs: v<'timeoutMs'>('TIMEOUT_MS'),
      concurrency: v<'concurrency'>('CONCURRENCY'),
      minIntervalMs: v<'minIntervalMs'>('MIN_INTERVAL_MS'),
      maxQueue: v<'maxQueue'>('MAX_QUEUE'),
      scheduledMaxQueue: v<'scheduledMaxQueue'>('SCHEDULED_MAX_QUEUE'),
      tiers: v<'tiers'>('TIERS'),
      proxyUrls: v<'proxyUrls'>('PROXY_URLS'),
      settings: Object.fromEntries(Object.keys(mp.settings ?? {}).map((name) => [name, e[name]])),
    };
  }
  return configFrom(e, marketplaces);
}

/** Names and groups the parsed variables: the one place the configuration's shape is written. */
function configFrom(e: GlobalEnv, marketplaces: Record<string, MarketplaceConfig>) {
  return {
    host: e.MARKETLENS_HOST,
    port: e.MARKETLENS_PORT,
    workers: e.MARKETLENS_WORKERS,
    dataDir: e.MARKETLENS_DATA_DIR,
    apiKeys: e.MARKETLENS_API_KEYS,
    rateLimit: e.MARKETLENS_RATE_LIMIT,
    dailyQuota: e.MARKETLENS_DAILY_QUOTA,
    monthlyQuota: e.MARKETLENS_MONTHLY_QUOTA,
    rateLimitOnRedisError: e.MARKETLENS_RATE_LIMIT_ON_REDIS_ERROR,
    databaseUrl: e.MARKETLENS_DATABASE_URL,
    webhooks: { allowHttp: e.MARKETLENS_WEBHOOK_ALLOW_HTTP, allowPrivate: e.MARKETLENS_WEBHOOK_ALLOW_PRIVATE },
    historyRetentionDays: e.MARKETLENS_HISTORY_RETENTION_DAYS,
    maxWebhooksPerKey: e.MARKETLENS_MAX_WEBHOOKS_PER_KEY,
    maxTrackedPerKey: e.MARKETLENS_MAX_TRACKED_PER_KEY,
    redisUrl: e.MARKETLENS_REDIS_URL,
    redisPrefix: e.MARKETLENS_REDIS_PREFIX,
    proxyUrls: e.MARKETLENS_PROXY_URLS,
    unblockerUrl: e.MARKETLENS_UNBLOCKER_URL,
    replay: e.MARKETLENS_REPLAY,
    recordDir: e.MARKETLENS_RECORD_DIR,
    logLevel: e.MARKETLENS_LOG_LEVEL,
    metricsPublic: e.MARKETLENS_METRICS_PUBLIC,
    shutdownDelayMs: e.MARKETLENS_SHUTDOWN_DELAY_MS,
    shutdownTimeoutMs: e.MARKETLENS_SHUTDOWN_TIMEOUT_MS,
    idleTimeoutMs: e.MARKETLENS_IDLE_TIMEOUT_MS,
    requestTimeoutMs: e.MARKETLENS_REQUEST_TIMEOUT_MS,
    maxConnections: e.MARKETLENS_MAX_CONNECTIONS,
    deadlineMs: e.MARKETLENS_DEADLINE_MS,
    maxBodyBytes: e.MARKETLENS_MAX_BODY_BYTES,
    retry: { attempts: e.MARKETLENS_RETRY_ATTEMPTS, baseMs: e.MARKETLENS_RETRY_BASE_MS },
    attemptTimeoutMs: e.MARKETLENS_ATTEMPT_TIMEOUT_MS,
    breaker: { threshold: e.MARKETLENS_BREAKER_THRESHOLD, cooldownMs: e.MARKETLENS_BREAKER_COOLDOWN_MS },
    proxyRestMs: e.MARKETLENS_PROXY_REST_MS,
    ttl: {
      prices: e.MARKETLENS_TTL_PRICES,
      products: e.MARKETLENS_TTL_PRODUCTS,
      searches: e.MARKETLENS_TTL_SEARCHES,
      finder: e.MARKETLENS_TTL_FINDER,
    },
    staleIfErrorSeconds: e.MARKETLENS_STALE_IF_ERROR,
    cacheMaxBytes: e.MARKETLENS_CACHE_MAX_BYTES,
    browserPath: browserPath(e.MARKETLENS_BROWSER_PATH),
    browserPoolSize: e.MARKETLENS_BROWSER_POOL_SIZE,
    publicUrl: e.MARKETLENS_PUBLIC_URL,
    resaleBProductKeys: e.MARKETLENS_RESALE_B_PRODUCT_KEYS,
    parseThreads: e.MARKETLENS_PARSE_THREADS,
    parseOffThreadBytes: e.MARKETLENS_PARSE_OFF_THREAD_BYTES,
    canaryIntervalMs: e.MARKETLENS_CANARY_INTERVAL,
    marketplaces,
  };
}

/** MARKETLENS_BROWSER_PATH, else Debian's Chromium when installed; `none` turns the browser tier off. */
function browserPath(configured: string | undefined): string | undefined {
  if (configured === 'none' || configured === 'off') return undefined;
  return configured ?? (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined);
}

/** Names and meanings of every variable, for the README table and `marketlens --help`. */
export const CONFIG_VARIABLES = Object.keys(envSchema.shape);
