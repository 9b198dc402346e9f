/**
 * Every migration, in order. Names sort in application order; a migration, once released, is never edited — add
 * the next number instead. One import line and one entry per migration.
 */
import type { Migration } from 'kysely';
import { keysMigration } from './0001-keys.js';

export const MIGRATIONS: Record<string, Migration> = {
  '0001-keys': keysMigration,
};
