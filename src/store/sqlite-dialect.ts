/**
 * Kysely's SQLite dialect with `BEGIN IMMEDIATE` transactions. A plain (deferred) `BEGIN` that reads and then
 * writes fails at once with SQLITE_BUSY when another process wrote in between — the busy timeout does not apply to
 * that upgrade. `BEGIN IMMEDIATE` takes the write lock up front, so concurrent processes (CLI, several servers,
 * two migrating start-ups) simply wait their turn for up to the busy timeout.
 */
import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver } from 'kysely';

class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

export class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly settings: ConstructorParameters<typeof SqliteDialect>[0]) {
    super(settings);
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.settings);
  }
}
