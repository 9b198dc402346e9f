/** The scheduler for this configuration: BullMQ on the shared Redis when MARKETLENS_REDIS_URL is set, else embedded. */
import type { Logger } from '../platform/logger.js';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../store/schema.js';
import { BullmqScheduler } from './bullmq.js';
import { EmbeddedScheduler } from './embedded.js';
import type { Scheduler } from './scheduler.js';

export type { Scheduler, JobHandler } from './scheduler.js';
export { addJob, getJob, listJobs, removeJob, setJobPaused, type Job } from './jobs.js';

export function createScheduler(
  config: Pick<Config, 'redisUrl' | 'redisPrefix'>,
  db: Kysely<Database>,
  log?: Logger,
): Scheduler {
  return config.redisUrl
    ? new BullmqScheduler(db, { redisUrl: config.redisUrl, prefix: config.redisPrefix, log })
    : new EmbeddedScheduler(db, { log });
}
