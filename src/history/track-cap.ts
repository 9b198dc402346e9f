/**
 * The per-key cap on tracked products (MARKETLENS_MAX_TRACKED_PER_KEY, issue 27): a `track` job is added only while
 * its key owns fewer, counted and inserted under the cap's lock (src/limits/caps.ts). The owner lives in the job's
 * JSON payload (`ownerKeyId`), read with each engine's own JSON operator.
 */
import { sql, type Kysely } from 'kysely';
import { createWithinCap } from '../limits/caps.js';
import { addJob, type Job } from '../schedule/index.js';
import type { Database, Engine } from '../store/index.js';
import { TRACK_KIND, type TrackPayload } from './track.js';

/** Adds the tracked product, or 409 `limit_reached` when its key already tracks `max`. */
export async function addTrackedWithinCap(
  db: Kysely<Database>,
  engine: Engine,
  max: number,
  payload: TrackPayload & { ownerKeyId: string },
  intervalMs: number,
): Promise<Job> {
  const owner =
    engine === 'postgres'
      ? sql<string>`(payload::json ->> 'ownerKeyId')`
      : sql<string>`json_extract(payload, '$.ownerKeyId')`;
  return createWithinCap(
    db,
    engine,
    { what: 'tracked products', max },
    payload.ownerKeyId,
    async (trx) => {
      const r = await trx
        .selectFrom('schedule_jobs')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('kind', '=', TRACK_KIND)
        .where(owner, '=', payload.ownerKeyId)
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
    (trx) => addJob(trx, { kind: TRACK_KIND, payload, intervalMs }),
  );
}
