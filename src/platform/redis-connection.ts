/**
 * One Redis connection per process (plus a subscriber for in-flight notifications), shared by the cache, the
 * cross-instance de-duplication and the rate limits. Configured to fail fast instead of queueing: a command issued
 * while Redis is unreachable rejects at once (no offline queue) or after COMMAND_TIMEOUT_MS (a hung server), and
 * every caller treats that as "no shared state" — never as an error for the API caller.
 *
 * A hung server (it accepts TCP but never answers: SIGSTOP, a stuck host) would make every command wait out its
 * timeout, and each lookup issues several: after STALL_AFTER_TIMEOUTS timeouts the connection is dropped, so
 * commands fail at once while ioredis reconnects in the background (its ready check probes the server, with the
 * same command timeout) until the server answers again. /readyz reads "degraded" meanwhile.
 */
import { Redis } from 'ioredis';

import type { Logger } from './logger.js';

/** MARKETLENS_REDIS_COMMAND_TIMEOUT_MS's default. */
export const COMMAND_TIMEOUT_MS = 500;
const CONNECT_TIMEOUT_MS = 1000;
/** Command timeouts within STALL_WINDOW_MS that mark the server as stalled. */
const STALL_AFTER_TIMEOUTS = 2;
const STALL_WINDOW_MS = 5_000;
/** Reconnect forever, backing off to at most this delay. */
const MAX_RECONNECT_DELAY_MS = 2000;

export type RedisHealth = 'ok' | 'down';

export class RedisConnection {
  readonly client: Redis;
  /** Every shared key starts with this (MARKETLENS_REDIS_PREFIX), so deployments and test runs can share a server. */
  readonly prefix: string;
  private subscriberClient?: Redis;
  private wasUp = false;
  private lastDownLog = 0;
  private closed = false;
  /** When recent command timeouts happened (at most STALL_AFTER_TIMEOUTS kept). */
  private timeouts: number[] = [];

  /** @example new RedisConnection('redis://127.0.0.1:6379', 'marketlens:', app.log) */
  constructor(
    url: string,
    prefix: string,
    private readonly log: Logger,
    /** MARKETLENS_REDIS_COMMAND_TIMEOUT_MS. */
    private readonly commandTimeoutMs = COMMAND_TIMEOUT_MS,
  ) {
    this.prefix = prefix;
    this.client = new Redis(url, redisOptions(commandTimeoutMs));
    this.watch(this.client, 'commands');
  }

  /** True when commands can be sent right now (connected and handshaken). */
  get isUp(): boolean {
    return this.client.status === 'ready';
  }

  /** The pub/sub connection, created on first use (ioredis re-subscribes after reconnects by itself). */
  get subscriber(): Redis {
    if (!this.subscriberClient) {
      // The subscriber only sends SUBSCRIBE: let it queue until connected (ioredis re-subscribes after reconnects).
      this.subscriberClient = this.client.duplicate({
        ...redisOptions(this.commandTimeoutMs),
        enableOfflineQueue: true,
        commandTimeout: undefined,
      });
      this.watch(this.subscriberClient, 'subscriber');
    }
    return this.subscriberClient;
  }

  /** Resolves once connected, or after `timeoutMs` / the first connection error: start-up never hangs on Redis. */
  async waitUntilReady(timeoutMs = CONNECT_TIMEOUT_MS): Promise<boolean> {
    if (this.isUp) return true;
    return new Promise<boolean>((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.client.off('ready', onReady);
        this.client.off('error', onError);
        resolve(ok);
      };
      const onReady = () => done(true);
      const onError = () => done(false);
      const timer = setTimeout(() => done(this.isUp), timeoutMs);
      this.client.once('ready', onReady);
      this.client.once('error', onError);
    });
  }

  /** /readyz: a PING with a short timeout, so a hung server reads as down, not as a hung probe. */
  async health(): Promise<RedisHealth> {
    if (!this.isUp) return 'down';
    try {
      await this.client.ping();
      return 'ok';
    } catch {
      return 'down';
    }
  }

  /** Logs a failure loudly, but at most once per 30 s per kind, so an outage does not flood the log. */
  reportFailure(what: string, e: unknown): void {
    const now = Date.now();
    if (/Command timed out/i.test(String((e as Error)?.message ?? e))) this.noteTimeout(now);
    if (now - this.lastDownLog < 30_000) return;
    this.lastDownLog = now;
    this.log.error({ err: { message: (e as Error)?.message ?? String(e) }, what }, 'redis unavailable: degrading');
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([
      quitQuickly(this.client),
      this.subscriberClient ? quitQuickly(this.subscriberClient) : undefined,
    ]);
  }

  /** Enough timeouts close together: treat the server as down until a reconnect's ready check succeeds. */
  private noteTimeout(now: number): void {
    this.timeouts = [...this.timeouts.filter((t) => now - t < STALL_WINDOW_MS), now].slice(-STALL_AFTER_TIMEOUTS);
    if (this.timeouts.length < STALL_AFTER_TIMEOUTS || this.closed || this.client.status !== 'ready') return;
    this.timeouts = [];
    this.log.error(
      { timeouts: STALL_AFTER_TIMEOUTS, windowMs: STALL_WINDOW_MS },
      'redis stalled (commands time out): treating it as down and reconnecting',
    );
    this.client.disconnect(true);
  }

  private watch(c: Redis, role: string): void {
    c.on('ready', () => {
      if (role === 'commands' && this.wasUp === false) this.log.info({ role }, 'redis connected');
      if (role === 'commands') this.wasUp = true;
    });
    c.on('close', () => {
      if (this.closed || role !== 'commands' || !this.wasUp) return;
      this.wasUp = false;
      this.log.error(
        { role },
        'redis connection lost: cache degrades to misses, rate limits follow MARKETLENS_RATE_LIMIT_ON_REDIS_ERROR',
      );
    });
    // Without a listener ioredis prints every reconnect error; report them through our throttled log instead.
    c.on('error', (e: unknown) => this.reportFailure(role, e));
  }
}

function redisOptions(commandTimeoutMs: number) {
  return {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: commandTimeoutMs,
    connectTimeout: CONNECT_TIMEOUT_MS,
    retryStrategy: (attempt: number) => Math.min(100 * 2 ** Math.min(attempt, 5), MAX_RECONNECT_DELAY_MS),
  };
}

async function quitQuickly(c: Redis): Promise<void> {
  if (c.status === 'end') return;
  try {
    await Promise.race([c.quit(), new Promise((r) => setTimeout(r, 500).unref())]);
  } catch {
    // already closed or unreachable
  }
  c.disconnect(false);
}
