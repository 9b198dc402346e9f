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
  };
}
