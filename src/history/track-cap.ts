/**
 * The per-key cap on tracked products (MARKETLENS_MAX_TRACKED_PER_KEY, issue 27): a `track` job is added only while
 * its key owns fewer, counted and inserted under the cap's lock (src/limits/caps.ts). The owner lives in the job's
 * JSON payload (`ownerKeyId`), read with each engine's own JSON operator.
 */
import { sql, type Kysely } from 'kysely';
import { createWithinCap } from '../limits/caps.js';
import { addJob, type Job } from '../jobs/index.js';
import { toJob } from '../jobs/jobs.js';
import type { Database, Engine } from '../store/index.js';
import { TRACK_KIND, type TrackPayload } from './track.js';

/**
 * The number of `track` jobs `ownerKeyId` owns, as a query: the owner read with each engine's own JSON operator, in
 * the very spelling the owner index is built on (migration 0004), so the count reads the index, not every payload.
 */
export function trackedByOwner(db: Kysely<Database>, engine: Engine, ownerKeyId: string) {
  return db
    .selectFrom('schedule_jobs')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('kind', '=', TRACK_KIND)
    .where(trackOwner(engine), '=', ownerKeyId);
}

/** The `track` jobs `ownerKeyId` owns, oldest first (at most the cap's number), through the same owner index. */
export async function listTrackedByOwner(db: Kysely<Database>, engine: Engine, ownerKeyId: string): Promise<Job[]> {
  const rows = await db
    .selectFrom('schedule_jobs')
    .selectAll()
    .where('kind', '=', TRACK_KIND)
    .where(trackOwner(engine), '=', ownerKeyId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => toJob(r));
}

/** A job's owner, in the spelling the owner index (migration 0004) is built on. */
function trackOwner(engine: Engine) {
  return engine === 'postgres'
    ? sql<string>`(payload::json ->> 'ownerKeyId')`
    : sql<string>`json_extract(payload, '$.ownerKeyId')`;
}

/** Adds the tracked product, or 409 `limit_reached` when its key already tracks `max`. */
export async function addTrackedWithinCap(
  db: Kysely<Database>,
  engine: Engine,
  max: number,
  payload: TrackPayload & { ownerKeyId: string },
  intervalMs: number,
): Promise<Job> {
  return createWithinCap(
    db,
    engine,
    { what: 'tracked products', max },
    payload.ownerKeyId,
    async (trx) => Number((await trackedByOwner(trx, engine, payload.ownerKeyId).executeTakeFirstOrThrow()).n),
    (trx) => addJob(trx, { kind: TRACK_KIND, payload, intervalMs }),
  );
}
