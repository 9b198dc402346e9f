/**
 * The one BullMQ integration (MARKETLENS_REDIS_URL set), shared by both kinds of jobs (recurring-bullmq.ts,
 * lane-bullmq.ts): how bullmq is loaded, where its keys live, the connections its queues and workers use, and a
 * shutdown that never hangs on an unreachable Redis.
 *
 * bullmq is loaded on first use: only a service with MARKETLENS_REDIS_URL runs it, and loading it costs ~13 MB of
 * RSS and ~4 MB of heap at start (issue 21's memory bound). bullmq is CommonJS, so `require` loads it synchronously,
 * from the constructors that need it.
 */
import { createRequire } from 'node:module';
import type * as BullMQ from 'bullmq';
import { Redis } from 'ioredis';

let loaded: typeof BullMQ | undefined;

/** @example const { Queue } = bullmq(); */
export function bullmq(): typeof BullMQ {
  return (loaded ??= createRequire(import.meta.url)('bullmq') as typeof BullMQ);
}

/** Where a deployment's queues are: MARKETLENS_REDIS_URL and MARKETLENS_REDIS_PREFIX. */
export interface BullTarget {
  redisUrl: string;
  /** Key prefix of this deployment, so deployments and test runs never share queues. */
  prefix: string;
}

/** Every queue of a deployment lives under `${prefix}bull` (`schedule` for recurring jobs, one per lane). */
export function bullPrefix(target: BullTarget): string {
  return `${target.prefix}bull`;
}

/**
 * A connection for BullMQ. `blocking`: what a worker's blocking commands (and the recurring jobs' queue) need —
 * maxRetriesPerRequest: null, so a command waits for a reconnect. `producer`: adds that fail fast (one retry, 5 s at
 * most on a hung server), so nothing piles up while Redis is down. Errors go to `onError` (an ioredis client without
 * an 'error' listener would throw).
 */
export function bullConnection(target: BullTarget, role: 'blocking' | 'producer', onError: (e: Error) => void): Redis {
  const connection = new Redis(
    target.redisUrl,
    role === 'blocking' ? { maxRetriesPerRequest: null } : { maxRetriesPerRequest: 1, commandTimeout: 5_000 },
  );
  connection.on('error', onError);
  return connection;
}

export interface BullQueueOptions {
  connection: Redis;
  defaultJobOptions?: BullMQ.DefaultJobOptions;
  onError: (e: Error) => void;
}

/** A queue of this deployment; its errors go to `onError` (Redis trouble is logged, lookups go on). */
export function bullQueue<D>(name: string, target: BullTarget, opts: BullQueueOptions): BullMQ.Queue<D> {
  const queue = new (bullmq().Queue)<D>(name, {
    connection: opts.connection,
    prefix: bullPrefix(target),
    ...(opts.defaultJobOptions ? { defaultJobOptions: opts.defaultJobOptions } : {}),
  });
  queue.on('error', opts.onError);
  return queue;
}

export interface BullWorkerOptions<D> {
  concurrency: number;
  /** How long a taken job is held; a killed instance's job is taken again once its lock lapses. */
  lockDuration?: number;
  stalledInterval?: number;
  onError: (e: Error) => void;
  onFailed: (job: BullMQ.Job<D> | undefined, e: Error) => void;
}

/** A worker on its own blocking connection (closed with it by closeBull). */
export function bullWorker<D>(
  name: string,
  target: BullTarget,
  processor: BullMQ.Processor<D>,
  opts: BullWorkerOptions<D>,
): { worker: BullMQ.Worker<D>; connection: Redis } {
  // Reported through the worker's 'error' below.
  const connection = bullConnection(target, 'blocking', () => undefined);
  const worker = new (bullmq().Worker)<D>(name, processor, {
    connection,
    prefix: bullPrefix(target),
    concurrency: opts.concurrency,
    ...(opts.lockDuration === undefined ? {} : { lockDuration: opts.lockDuration }),
    ...(opts.stalledInterval === undefined ? {} : { stalledInterval: opts.stalledInterval }),
  });
  worker.on('error', opts.onError);
  worker.on('failed', opts.onFailed);
  return { worker, connection };
}

/** How long each closing step may take with Redis unreachable before the connections are cut. */
const CLOSE_STEP_MS = 2_000;

/** Settles when `p` does or after `ms`, whichever is first; never rejects. */
export function bounded(p: Promise<unknown> | undefined, ms = CLOSE_STEP_MS): Promise<unknown> {
  return Promise.race([p?.catch(() => undefined), new Promise((r) => setTimeout(r, ms).unref())]);
}

/**
 * Closes in order, each step bounded: with Redis unreachable, BullMQ's commands wait for a reconnect forever
 * (maxRetriesPerRequest: null), so shutdown gives them a moment and then cuts the connections, which fails whatever
 * still waits.
 */
export async function closeBull(parts: {
  worker?: { close(): Promise<void> };
  /** What must settle before the queue closes (adds or a sync in progress), asked once the worker has drained. */
  pending?: () => Promise<unknown> | undefined;
  queue: { close(): Promise<void> };
  connections: (Redis | undefined)[];
  /** Awaited (unbounded: it bounds itself) after the worker stopped taking jobs, before its close is waited for. */
  drain?: () => Promise<unknown>;
}): Promise<void> {
  const closing = parts.worker?.close().catch(() => undefined);
  await parts.drain?.();
  await bounded(closing);
  await bounded(parts.pending?.());
  await bounded(parts.queue.close());
  for (const c of parts.connections) c?.disconnect();
}
