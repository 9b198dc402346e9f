/**
 * Whether a database error means "the database cannot take writes right now" (down, restarting, unreachable, busy,
 * full) rather than "this row is refused". Writers keep what they hold and try again later for the first; for the
 * second they write the rest and skip (log, count) the refused row. Unknown errors count as refusals: a writer then
 * tries row by row, and a database that is really down answers those with one of the codes below.
 */

/** PostgreSQL SQLSTATE classes and codes: connection exception, insufficient resources, operator intervention, and
 * transaction rollback (serialization failure, deadlock: the same write succeeds when run again). */
const PG_TRANSIENT = /^(08|53|57P0[1-4]|40)/;
/** Node socket errors on the way to the server. */
const NET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
/** SQLite: another process holds the lock past the busy timeout, the disk or file is full, I/O failed. */
const SQLITE_TRANSIENT = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|CANTOPEN|PROTOCOL|NOLFS)/;
/** pg's own errors carry no code; their messages are stable. */
const PG_MESSAGES =
  /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect|Client was closed|Cannot use a pool after calling end/i;

export function isStoreUnavailable(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  const code = (e as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (SQLITE_TRANSIENT.test(code) || NET_CODES.has(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code) && PG_TRANSIENT.test(code)) return true;
  }
  if (PG_MESSAGES.test(e.message)) return true;
  // AggregateError (a host with several addresses refused on each) and wrapped causes.
  if (e instanceof AggregateError) return e.errors.some(isStoreUnavailable);
  return e.cause !== undefined && e.cause !== e && isStoreUnavailable(e.cause);
}
