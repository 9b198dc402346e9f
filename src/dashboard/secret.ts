/**
 * The HMAC key that signs dashboard session cookies, kept in the database (`dashboard_secrets`, migration 0006):
 * the first instance to start creates it, every later start (and every other instance on the same database) reads
 * the same one, so sessions survive restarts and work behind a load balancer. Whoever can read the database can
 * forge a session; they can read the key hashes and every tracked product too, so that adds no new exposure.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../store/index.js';

const NAME = 'session';

export async function loadSessionSecret(db: Kysely<Database>, now = Date.now()): Promise<Buffer> {
  // Two instances starting at once both insert; the primary key keeps the first and both read it back.
  await db
    .insertInto('dashboard_secrets')
    .values({ name: NAME, value: randomBytes(32).toString('base64url'), created_at: now })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db
    .selectFrom('dashboard_secrets')
    .select('value')
    .where('name', '=', NAME)
    .executeTakeFirstOrThrow();
  return Buffer.from(row.value, 'base64url');
}
