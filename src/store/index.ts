/** The database module: import from here. */
export { openStore, sqliteFile, redactUrl, type Store, type Engine, type OpenStoreOptions } from './open-store.js';
export { migrateToLatest, migrationStatus } from './migrate.js';
export { StoreError } from './store-error.js';
export type { Database } from './schema.js';
