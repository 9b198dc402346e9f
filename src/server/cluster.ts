/**
 * MARKETLENS_WORKERS > 1 (issue 21): `marketlens serve` becomes a node:cluster primary that prepares the database
 * once, then forks that many workers. Each worker is today's single process (src/cli.ts `serve`): it builds the app
 * and listens on the port through cluster's shared handle (Node 20 ignores `reusePort`), and the primary hands out
 * connections. The primary serves no request.
 *
 * What needs no change for several processes: every durable state is claimed or added in the database (the
 * scheduler's jobs, canaries included, by compare-and-set; webhook deliveries by lease; usage counts by
 * `count = count + delta`; SQLite waits up to 10 s on a writer), and key revocations are polled by each process.
 * What stays per worker without MARKETLENS_REDIS_URL: the lookup cache and its de-duplication, rate limits, the
 * politeness limits per marketplace, /metrics and /api/v1/status (see README, "Several workers").
 */
import cluster, { type Worker } from 'node:cluster';
import pino, { type Logger } from 'pino';
import type { Config } from '../config.js';

/** A worker that dies young is re-forked after this, doubling per early death up to MAX: a crash loop never spins. */
const FIRST_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 10_000;
/** A worker that ran this long died of something else than a start-up crash: the backoff starts over. */
const STABLE_AFTER_MS = 10_000;
/** Past the workers' own shutdown delay and grace: what is still running then is killed. */
const EXIT_SLACK_MS = 5_000;

export type PrimaryConfig = Pick<Config, 'workers' | 'logLevel' | 'redisUrl' | 'shutdownDelayMs' | 'shutdownTimeoutMs'>;

/**
 * Runs the primary: `prepare` first (migrations, legacy key import, the first key: once, before any worker, so
 * workers never race each other for them), then the workers, re-forked when they die, until SIGTERM or SIGINT.
 */
export async function runPrimary(config: PrimaryConfig, prepare: (log: Logger) => Promise<void>): Promise<void> {
  const log = pino({ level: config.logLevel }).child({ role: 'primary' });
  await prepare(log);
  log.info(
    { workers: config.workers, shared: config.redisUrl ? 'redis' : 'none' },
    config.redisUrl
      ? `starting ${config.workers} workers on one port; cache, de-duplication and rate limits are shared through Redis`
      : `starting ${config.workers} workers on one port; caches and rate limits are per worker ` +
          '(set MARKETLENS_REDIS_URL to share them); usage counts stay exact (database)',
  );

  const forkedAt = new Map<Worker, number>();
  const refork = new Set<NodeJS.Timeout>();
  let listening = 0;
  let backoffMs = FIRST_BACKOFF_MS;
  let stopping = false;
  let failed = false;

  const fork = () => {
    const worker = cluster.fork();
    forkedAt.set(worker, Date.now());
    worker.once('listening', () => {
      log.info({ worker: worker.id, workerPid: worker.process.pid }, 'worker listening');
      if (++listening === config.workers) log.info({ workers: config.workers }, 'all workers listening');
    });
  };

  cluster.on('exit', (worker, code, signal) => {
    const lived = Date.now() - (forkedAt.get(worker) ?? 0);
    forkedAt.delete(worker);
    if (stopping) {
      if (code !== 0) failed = true;
      log.info({ worker: worker.id, workerPid: worker.process.pid, code, signal }, 'worker exited');
      if (forkedAt.size === 0) process.exit(failed ? 1 : 0);
      return;
    }
    if (listening === 0) {
      // No worker ever listened: a start-up failure (port in use, database unreachable) that every worker would
      // repeat. The worker printed why; end as a single process would, with exit code 1.
      log.error({ worker: worker.id, workerPid: worker.process.pid, code, signal }, 'a worker failed to start');
      for (const w of forkedAt.keys()) w.process.kill('SIGKILL');
      process.exit(1);
    }
    if (lived >= STABLE_AFTER_MS) backoffMs = FIRST_BACKOFF_MS;
    const delayMs = backoffMs;
    backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS);
    log.error(
      { worker: worker.id, workerPid: worker.process.pid, code, signal, restartInMs: delayMs },
      'worker died; starting another',
    );
    const t = setTimeout(() => {
      refork.delete(t);
      fork();
    }, delayMs);
    refork.add(t);
  });

  // Each worker drains as a single process does (shutdown delay, then in-flight requests get the grace); the primary
  // exits once they all have. A terminal's Ctrl-C reaches every process of the group: workers ignore the repeat.
  // A second signal to the primary (Ctrl-C again) ends everything at once, as it ends a single process.
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn({ signal }, 'second signal: killing the workers');
      for (const w of forkedAt.keys()) w.process.kill('SIGKILL');
      process.exit(1);
    }
    stopping = true;
    for (const t of refork) clearTimeout(t);
    log.info({ signal, workers: forkedAt.size }, 'shutting down: stopping every worker');
    if (forkedAt.size === 0) process.exit(0);
    for (const w of forkedAt.keys()) w.process.kill(signal);
    const delay = signal === 'SIGTERM' ? config.shutdownDelayMs : 0;
    setTimeout(
      () => {
        log.warn({ running: forkedAt.size }, 'workers still running after their shutdown grace: killing them');
        for (const w of forkedAt.keys()) w.process.kill('SIGKILL');
        process.exit(1);
      },
      delay + config.shutdownTimeoutMs + EXIT_SLACK_MS,
    ).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

  for (let i = 0; i < config.workers; i++) fork();
}
