/**
 * Every migration, in order. Names sort in application order; a migration, once released, is never edited — add
 * the next number instead. One import line and one entry per migration.
 */
import type { Migration } from 'kysely';
import { keysMigration } from './0001-keys.js';
import { historyMigration } from './0002-history.js';
import { alertsMigration } from './0003-alerts.js';
import { scheduleOwnerMigration } from './0004-schedule-owner.js';
import { alertChannelsMigration } from './0005-alert-channels.js';
import { productLinksMigration } from './0006-product-links.js';
import { dashboardSecretsMigration } from './0007-dashboard-secrets.js';
import { schedulePausedMigration } from './0008-schedule-paused.js';

export const MIGRATIONS: Record<string, Migration> = {
  '0001-keys': keysMigration,
  '0002-history': historyMigration,
  '0003-alerts': alertsMigration,
  '0004-schedule-owner': scheduleOwnerMigration,
  '0005-alert-channels': alertChannelsMigration,
  '0006-product-links': productLinksMigration,
  '0007-dashboard-secrets': dashboardSecretsMigration,
  '0008-schedule-paused': schedulePausedMigration,
};
