/**
 * What /readyz says about the database: a live probe (`select 1`, bounded in time: an unreachable server must not
 * hold the answer up), and whether writers currently hold writes the database would not take (SQLite busy or full
 * answers the probe but refuses writes). Writers report through `unavailable(e)` and `wrote()`.
 */
import { sql, type Kysely } from 'kysely';

export type DatabaseCheck = 'ok' | 'unreachable' | 'writes_waiting';

const PROBE_TIMEOUT_MS = 1000;

export class StoreHealth {
  /** Writers whose last attempt found the database unavailable, by name (history, usage, alerts). */
  private readonly waiting = new Map<string, string>();

  /** `writer` holds writes because the database is unavailable (`e` says why). */
  unavailable(writer: string, e: unknown): void {
    this.waiting.set(writer, e instanceof Error ? e.message : String(e));
  }

  /** `writer` wrote everything it held. */
  wrote(writer: string): void {
    this.waiting.delete(writer);
  }

  /** Writers waiting for the database, with the last error each saw. */
  waitingWriters(): Record<string, string> {
    return Object.fromEntries(this.waiting);
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any database: the probe names no table
  async check(db: Kysely<any>, timeoutMs = PROBE_TIMEOUT_MS): Promise<DatabaseCheck> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    const probe = sql`select 1`.execute(db).then(
      () => true,
      () => false,
    );
    const reachable = await Promise.race([probe, timeout]).finally(() => clearTimeout(timer));
    if (!reachable) return 'unreachable';
    return this.waiting.size > 0 ? 'writes_waiting' : 'ok';
  }
}
