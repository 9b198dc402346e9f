/**
 * The one reader of process.env: a zod schema over every MARKETLENS_* variable (and `.env`), parsed once at start-up.
 * A bad value stops the process with a message naming the variable. Everything else receives a typed `Config`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { z } from 'zod';
import { MARKETPLACES, MARKETPLACE_INFO, type Marketplace } from './marketplaces/catalog.js';

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
  .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean))
  .pipe(
    z.array(
      z.string().refine((s) => /^(https?|socks5h?|socks4):\/\/[^\s]+$/.test(s), {
        message: 'each proxy must be an http://, https:// or socks5:// URL',
      }),
    ),
  );

const commaList = z.string().transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean));

export const FETCH_TIERS = ['direct', 'proxy', 'unblocker', 'browser'] as const;
export type FetchTier = (typeof FETCH_TIERS)[number];
const tierList = commaList.pipe(z.array(z.enum(FETCH_TIERS)).min(1));

/** Global variables. Per-marketplace ones are generated below from MARKETPLACE_INFO. */
const globalShape = {
  MARKETLENS_HOST: z.string().min(1).default('0.0.0.0'),
  MARKETLENS_PORT: int(0, 65535).default(8080),
  MARKETLENS_DATA_DIR: z.string().min(1).default('./data'),
  MARKETLENS_API_KEYS: commaList.default([]),
  MARKETLENS_RATE_LIMIT: rateSpec.default({ points: 60, durationSeconds: 60 }),
  MARKETLENS_DAILY_QUOTA: int(0, 1e9).default(0),
  MARKETLENS_MONTHLY_QUOTA: int(0, 1e10).default(0),
  /** What to do with rate limits when Redis fails at runtime: keep serving (log loudly) or refuse. */
  MARKETLENS_RATE_LIMIT_ON_REDIS_ERROR: z.enum(['allow', 'deny']).default('allow'),
  /** PostgreSQL for keys, usage and every other state; unset = SQLite at <DATA_DIR>/marketlens.db. */
  MARKETLENS_DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\/\S+$/, 'expected postgres://user@host:port/database').optional(),
  /** Days of price history kept (issue 17); a daily prune deletes older rows. */
  MARKETLENS_HISTORY_RETENTION_DAYS: int(1, 36500).default(365),
  MARKETLENS_REDIS_URL: z.string().regex(/^rediss?:\/\//, 'expected redis://host:port').optional(),
  /** Start of every key marketlens writes in Redis, so several deployments (or test runs) can share one server. */
  MARKETLENS_REDIS_PREFIX: z.string().regex(/^[\w:.-]{1,64}$/, 'expected letters, digits, and : . _ -').default('marketlens:'),
  MARKETLENS_PROXY_URLS: urlList.default([]),
  MARKETLENS_UNBLOCKER_URL: z
    .string()
    .refine((v) => /^https?:\/\/\S+$/.test(v) && v.includes('{url}'), 'expected an http(s) URL template containing {url}')
    .optional(),
  MARKETLENS_REPLAY: z.string().min(1).optional(),
  MARKETLENS_RECORD_DIR: z.string().min(1).optional(),
  MARKETLENS_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  MARKETLENS_METRICS_PUBLIC: bool.default(false),
  /** On SIGTERM, how long to keep serving with /readyz at 503 before closing, so load balancers drain first (ms). */
  MARKETLENS_SHUTDOWN_DELAY_MS: int(0, 120_000).default(2_000),
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
  MARKETLENS_BESTBUY_API_KEY: z.string().min(1).optional(),
  MARKETLENS_BROWSER_PATH: z.string().min(1).optional(),
  MARKETLENS_BROWSER_POOL_SIZE: int(1, 64).default(4),
};

/** Per-marketplace variables: MARKETLENS_<MP>_ORIGIN, _TIMEOUT_MS, _CONCURRENCY, _MIN_INTERVAL_MS, _TIERS, _PROXY_URLS. */
function marketplaceShape(mp: Marketplace) {
  const p = `MARKETLENS_${MARKETPLACE_INFO[mp].envName}_`;
  return {
    [`${p}ORIGIN`]: origin.optional(),
    [`${p}TIMEOUT_MS`]: int(100, 300_000).optional(),
    [`${p}CONCURRENCY`]: int(1, 1000).default(8),
    [`${p}MIN_INTERVAL_MS`]: int(0, 60_000).default(0),
    [`${p}MAX_QUEUE`]: int(0, 100_000).default(200),
    [`${p}TIERS`]: tierList.optional(),
    [`${p}PROXY_URLS`]: urlList.optional(),
  } as Record<string, z.ZodType>;
}

const envSchema = z.object({
  ...globalShape,
  ...Object.assign({}, ...MARKETPLACES.map(marketplaceShape)),
});

export interface MarketplaceConfig {
  /** Replaces scheme/host/port of every upstream URL (tests, mirrors); undefined = the real site. */
  origin?: string;
  /** Per-attempt timeout (ms); the lookup deadline still bounds the whole lookup. */
  timeoutMs?: number;
  concurrency: number;
  minIntervalMs: number;
  maxQueue: number;
  /** Fetch tiers in order; default: direct, then proxy and unblocker when configured. */
  tiers?: FetchTier[];
  proxyUrls?: string[];
}

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  apiKeys: string[];
  rateLimit: RateSpec;
  dailyQuota: number;
  monthlyQuota: number;
  rateLimitOnRedisError: 'allow' | 'deny';
  /** postgres://…; undefined = SQLite in dataDir */
  databaseUrl?: string;
  historyRetentionDays: number;
  redisUrl?: string;
  redisPrefix: string;
  proxyUrls: string[];
  unblockerUrl?: string;
  replay?: string;
  recordDir?: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  metricsPublic: boolean;
  shutdownDelayMs: number;
  deadlineMs: number;
  maxBodyBytes: number;
  retry: { attempts: number; baseMs: number };
  attemptTimeoutMs: number;
  breaker: { threshold: number; cooldownMs: number };
  proxyRestMs: number;
  ttl: { prices: number; products: number; searches: number; finder: number };
  staleIfErrorSeconds: number;
  cacheMaxBytes: number;
  bestbuyApiKey?: string;
  browserPath?: string;
  browserPoolSize: number;
  marketplaces: Record<Marketplace, MarketplaceConfig>;
}

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
export function loadConfig(env: Record<string, string | undefined> = readEnv()): Config {
  const relevant: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    // An empty variable means "not set", as in most twelve-factor services.
    if (k.startsWith('MARKETLENS_') && v !== undefined && v !== '') relevant[k] = v;
  }
  const unknown = Object.keys(relevant).filter((k) => !(k in envSchema.shape));
  if (unknown.length > 0) {
    throw new ConfigError(`Unknown configuration variable ${unknown.join(', ')} (see README, "Configuration")`);
  }
  const parsed = envSchema.safeParse(relevant);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${String(i.path[0])}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data as Record<string, any>;
  const marketplaces = {} as Record<Marketplace, MarketplaceConfig>;
  for (const mp of MARKETPLACES) {
    const p = `MARKETLENS_${MARKETPLACE_INFO[mp].envName}_`;
    marketplaces[mp] = {
      origin: e[`${p}ORIGIN`],
      timeoutMs: e[`${p}TIMEOUT_MS`],
      concurrency: e[`${p}CONCURRENCY`],
      minIntervalMs: e[`${p}MIN_INTERVAL_MS`],
      maxQueue: e[`${p}MAX_QUEUE`],
      tiers: e[`${p}TIERS`],
      proxyUrls: e[`${p}PROXY_URLS`],
    };
  }
  return {
    host: e.MARKETLENS_HOST,
    port: e.MARKETLENS_PORT,
    dataDir: e.MARKETLENS_DATA_DIR,
    apiKeys: e.MARKETLENS_API_KEYS,
    rateLimit: e.MARKETLENS_RATE_LIMIT,
    dailyQuota: e.MARKETLENS_DAILY_QUOTA,
    monthlyQuota: e.MARKETLENS_MONTHLY_QUOTA,
    rateLimitOnRedisError: e.MARKETLENS_RATE_LIMIT_ON_REDIS_ERROR,
    databaseUrl: e.MARKETLENS_DATABASE_URL,
    historyRetentionDays: e.MARKETLENS_HISTORY_RETENTION_DAYS,
    redisUrl: e.MARKETLENS_REDIS_URL,
    redisPrefix: e.MARKETLENS_REDIS_PREFIX,
    proxyUrls: e.MARKETLENS_PROXY_URLS,
    unblockerUrl: e.MARKETLENS_UNBLOCKER_URL,
    replay: e.MARKETLENS_REPLAY,
    recordDir: e.MARKETLENS_RECORD_DIR,
    logLevel: e.MARKETLENS_LOG_LEVEL,
    metricsPublic: e.MARKETLENS_METRICS_PUBLIC,
    shutdownDelayMs: e.MARKETLENS_SHUTDOWN_DELAY_MS,
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
    bestbuyApiKey: e.MARKETLENS_BESTBUY_API_KEY,
    browserPath: browserPath(e.MARKETLENS_BROWSER_PATH),
    browserPoolSize: e.MARKETLENS_BROWSER_POOL_SIZE,
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
