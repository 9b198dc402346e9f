/**
 * Kysely's SQLite dialect with `BEGIN IMMEDIATE` transactions. A plain (deferred) `BEGIN` that reads and then
 * writes fails at once with SQLITE_BUSY when another process wrote in between — the busy timeout does not apply to
 * that upgrade. `BEGIN IMMEDIATE` takes the write lock up front, so concurrent processes (CLI, several servers,
 * two migrating start-ups) simply wait their turn for up to the busy timeout.
 *
 * SQLite does run DDL inside transactions; Kysely's adapter says it does not, and then migrates with no
 * transaction and no lock at all. Saying it does makes the Migrator read its state and apply pending migrations in
 * one BEGIN IMMEDIATE transaction: two processes starting at once apply each migration exactly once.
 */
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
} from 'kysely';

class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

export class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly settings: ConstructorParameters<typeof SqliteDialect>[0]) {
    super(settings);
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.settings);
  }

  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}
