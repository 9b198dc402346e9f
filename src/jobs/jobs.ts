/** Adding, listing and removing scheduled jobs: shared by the HTTP routes, the CLI and both schedulers. */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';

export interface JobSpec<P = unknown> {
  kind: string;
  payload: P;
  intervalMs: number;
  /** First run; default now (the first fetch happens at once). */
  firstRunAt?: number;
}

export interface Job<P = unknown> {
  id: string;
  kind: string;
  payload: P;
  intervalMs: number;
  nextRunAt: number;
  lastRunAt: number | null;
  lastError: string | null;
  runs: number;
  createdAt: number;
  /** When it was paused; null while it runs. */
  pausedAt: number | null;
}

export async function addJob<P>(db: Kysely<Database>, spec: JobSpec<P>, now = Date.now()): Promise<Job<P>> {
  const row = {
    id: randomUUID(),
    kind: spec.kind,
    payload: JSON.stringify(spec.payload),
    interval_ms: spec.intervalMs,
    next_run_at: spec.firstRunAt ?? now,
    locked_until: null,
    last_run_at: null,
    last_error: null,
    runs: 0,
    created_at: now,
    paused_at: null,
  };
  await db.insertInto('schedule_jobs').values(row).execute();
  return toJob(row);
}

export async function removeJob(db: Kysely<Database>, id: string, kind?: string): Promise<boolean> {
  let q = db.deleteFrom('schedule_jobs').where('id', '=', id);
  if (kind) q = q.where('kind', '=', kind);
  const res = await q.executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

/**
 * Pauses or resumes a job; the job as it now is, or undefined when there is none (of that kind). Pausing twice keeps
 * the first pause time. Resuming makes it due at once, a single run: the slots missed while paused are not made up
 * (the embedded scheduler's claim, like BullMQ's re-added job scheduler, then keeps the cadence from there).
 */
export async function setJobPaused<P = unknown>(
  db: Kysely<Database>,
  id: string,
  paused: boolean,
  kind?: string,
  now = Date.now(),
): Promise<Job<P> | undefined> {
  let q = paused
    ? db.updateTable('schedule_jobs').set({ paused_at: now }).where('paused_at', 'is', null)
    : db.updateTable('schedule_jobs').set({ paused_at: null, next_run_at: now }).where('paused_at', 'is not', null);
  q = q.where('id', '=', id);
  if (kind) q = q.where('kind', '=', kind);
  await q.execute();
  const job = await getJob<P>(db, id);
  return job && (!kind || job.kind === kind) ? job : undefined;
}

export async function listJobs<P = unknown>(db: Kysely<Database>, kind?: string): Promise<Job<P>[]> {
  let q = db.selectFrom('schedule_jobs').selectAll().orderBy('created_at').orderBy('id');
  if (kind) q = q.where('kind', '=', kind);
  return (await q.execute()).map((r) => toJob<P>(r));
}

export async function getJob<P = unknown>(db: Kysely<Database>, id: string): Promise<Job<P> | undefined> {
  const r = await db.selectFrom('schedule_jobs').selectAll().where('id', '=', id).executeTakeFirst();
  return r ? toJob<P>(r) : undefined;
}

export function toJob<P>(r: Database['schedule_jobs']): Job<P> {
  return {
    id: r.id,
    kind: r.kind,
    payload: JSON.parse(r.payload) as P,
    intervalMs: Number(r.interval_ms),
    nextRunAt: Number(r.next_run_at),
    lastRunAt: r.last_run_at === null ? null : Number(r.last_run_at),
    lastError: r.last_error,
    runs: Number(r.runs),
    createdAt: Number(r.created_at),
    pausedAt: r.paused_at === null || r.paused_at === undefined ? null : Number(r.paused_at),
  };
}
