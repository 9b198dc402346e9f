/** The core's shape (src/core/index.ts builds it): what it is given, and the parts it holds. */
import type { AlertEngine, AlertEngineOptions } from '../alerts/engine.js';
import type { LookupCache } from '../cache/lookup-cache.js';
import type { Config } from '../config.js';
import type { SessionSigner } from '../dashboard/session.js';
import type { HistoryRecorder } from '../history/recorder.js';
import type { KeyStore } from '../keys/key-store.js';
import type { KeyLimits } from '../limits/key-limits.js';
import type { LiveResults } from '../operations/live-results.js';
import type { LookupService } from '../operations/lookup.js';
import type { ParsePool } from '../operations/parse-pool.js';
import type { Registry } from '../operations/registry.js';
import type { Logger } from '../platform/logger.js';
import type { RedisConnection } from '../platform/redis-connection.js';
import type { AnswerProduct, ProductWatch } from '../products/product-watch.js';
import type { ProductService } from '../products/service.js';
import type { JobRunner } from '../jobs/index.js';
import type { Metrics } from '../server/metrics.js';
import type { Canaries } from '../status/canaries.js';
import type { StatusParts } from '../status/status-parts.js';
import type { Store } from '../store/index.js';
import type { HttpClient } from '../upstream/http-client.js';

/** Alert delivery timing or sender overrides (tests). */
export type AlertEngineOverrides = Partial<Pick<AlertEngineOptions, 'timing' | 'sender' | 'timeoutMs'>>;

export interface CoreDeps {
  config: Config;
  /** The database; opened from config (and closed with the core) when absent. */
  store?: Store;
  /** The keys; opened on the store (and closed with the core) when absent. */
  keys?: KeyStore;
  http?: HttpClient;
  metrics?: Metrics;
  /**
   * The marketplaces and operations to serve; the built-in ones by default. A test adds a marketplace with
   * `BUILT_IN_REGISTRY.with(module)` (and loads its config with `loadConfig(env, registry.marketplaces)`).
   */
  registry?: Registry;
  /** The after-fetch seam; one is made when not given. */
  liveResults?: LiveResults;
  /** Alert delivery timing/sender overrides (tests). */
  alerts?: AlertEngineOverrides;
  /** Product answers from elsewhere than the product service (tests scripting the market for product alerts). */
  answerProduct?: AnswerProduct;
  /** The time every part stamps its records with (fetches, observations, canary rounds); Date.now by default. */
  clock?: () => number;
  /** Where the parts log; a pino logger at MARKETLENS_LOG_LEVEL on stdout when absent. */
  log?: Logger;
  /** Told as each part starts and stops (tests assert the order; a caller may log it). */
  onStep?: (step: 'start' | 'stop', part: string) => void;
}

export interface Core {
  config: Config;
  clock: () => number;
  log: Logger;
  registry: Registry;
  metrics: Metrics;
  /** The database (keys, usage, history, jobs, alerts: every durable state). */
  store: Store;
  keys: KeyStore;
  /** Present when MARKETLENS_REDIS_URL is set. */
  redis?: RedisConnection;
  cache: LookupCache;
  /** The upstream client; its events reach the metrics and the status (seams.ts). */
  http: HttpClient;
  parsePool?: ParsePool;
  /** The after-fetch seam: history, alerts and status subscribe here (src/operations/live-results.ts). */
  liveResults: LiveResults;
  lookup: LookupService;
  limits: KeyLimits;
  /** Price history: writes every live result; `onObserved` feeds the alerts. */
  recorder: HistoryRecorder;
  /** The one job runner: `track` (tracked products) and `canary` jobs and the alert delivery lane; on the database, or BullMQ with Redis. */
  jobs: JobRunner;
  alerts: AlertEngine;
  status: StatusParts;
  canaries: Canaries;
  /** The product by SKU; every answer also reaches `productWatch` (links and alerts). */
  products: ProductService;
  productWatch: ProductWatch;
  /** Dashboard sessions stand for a key on every route that takes one (src/dashboard, src/server/auth.ts). */
  sessions: SessionSigner;
  /** Part names in start order (stop runs them in reverse). */
  readonly order: readonly string[];
  /** Starts the parts in their declared order (the app calls it once ready: every route in place). */
  start(): Promise<void>;
  /** Stops every part, last declared first; safe on a core never started, and once only. */
  stop(): Promise<void>;
}
