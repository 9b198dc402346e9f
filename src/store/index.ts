/** The database module: import from here. */
export { openStore, sqliteFile, redactUrl, type Store, type Engine, type OpenStoreOptions } from './open-store.js';
export { migrateToLatest, migrationStatus } from './migrate.js';
export { StoreError } from './store-error.js';
export type { Database } from './schema.js';
export type { ApiKeyTable, KeyTables } from './key-tables.js';
export { StoreHealth, type DatabaseCheck } from './health.js';
export { isStoreUnavailable } from './unavailable.js';
export { storableRow, storableText } from './storable-text.js';
