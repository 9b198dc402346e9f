/**
 * bullmq, loaded on first use: only a service with MARKETLENS_REDIS_URL runs it, and loading it costs ~13 MB of RSS
 * and ~4 MB of heap at start (issue 21's memory bound). bullmq is CommonJS, so `require` loads it synchronously,
 * from the constructors that need it.
 */
import { createRequire } from 'node:module';
import type * as BullMQ from 'bullmq';

let loaded: typeof BullMQ | undefined;

/** @example const { Queue } = bullmq(); */
export function bullmq(): typeof BullMQ {
  return (loaded ??= createRequire(import.meta.url)('bullmq') as typeof BullMQ);
}
