/**
 * The database's table types, composed from one interface per area so each area adds its tables with one line here.
 * Conventions (src/store/README.md): timestamps are epoch milliseconds in `bigint` columns (numbers in TypeScript),
 * booleans are integers 0/1, text ids.
 */
import type { AlertTables } from '../alerts/schema.js';
import type { DashboardTables } from '../dashboard/tables.js';
import type { HistoryTables } from '../history/tables.js';
import type { ProductLinkTables } from '../products/link-tables.js';
import type { ScheduleTables } from '../jobs/tables.js';
import type { KeyTables } from './key-tables.js';

export interface Database
  extends KeyTables, HistoryTables, ScheduleTables, AlertTables, ProductLinkTables, DashboardTables {}
