/** Webhook subscriptions, the last value per alerted series (compare-and-set) and the delivery queue. */
import type { Migration } from 'kysely';
import { createAlertTables } from '../../alerts/schema.js';

export const alertsMigration: Migration = {
  up: createAlertTables,
};
