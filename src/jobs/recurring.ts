/**
 * Recurring jobs, the first kind the job runner runs: each job of the `schedule_jobs` table once per interval (across
 * every instance sharing the database or Redis), by calling the handler registered for the job's kind. Kinds are
 * registered by whoever owns them (history: `track`; status: `canary`), before `start`. Two backends:
 * recurring-db.ts (the table itself) and recurring-bullmq.ts (BullMQ job schedulers).
 */
import type { Job } from './jobs.js';

export type JobHandler = (job: Job) => Promise<void>;

export interface Scheduler {
  /** Registers the handler of a kind; jobs of a kind without a handler are left alone. */
  handle(kind: string, handler: JobHandler): void;
  start(): void;
  /** Stops taking jobs and waits for running ones. */
  stop(): Promise<void>;
  /** Tells the scheduler the job table changed (added/removed job), so it need not wait for its next poll. */
  changed(): void;
}
