/** Tables of migration 0001: API keys, their change counter and usage counts. */
import type { ColumnType } from 'kysely';

export interface ApiKeyTable {
  id: string;
  name: string;
  /** hex SHA-256 of the key; the key itself is never stored */
  hash: string;
  /** first characters of the key, for `keys list` */
  prefix: string;
  /** epoch ms */
  created_at: number;
  /** epoch ms of the last change (create, revoke) */
  updated_at: number;
  /** epoch ms; null = active */
  revoked_at: number | null;
  /** e.g. `600/min`; null = MARKETLENS_RATE_LIMIT */
  rate_limit: string | null;
  daily_quota: number | null;
  monthly_quota: number | null;
}

/** One row per named version counter; every write to api_keys bumps `keys` in the same transaction. */
export interface StoreVersionTable {
  name: string;
  version: number;
}

/** Durable request counts per key and UTC window (`2026-11-24` = a day, `2026-11` = a month). */
export interface UsageCountTable {
  key_id: string;
  period: string;
  count: ColumnType<number, number, number>;
  updated_at: number;
}

/** Legacy JSON files already imported (by content hash), so a file is imported once even by concurrent starts. */
export interface LegacyImportTable {
  id: string;
  file: string;
  imported_at: number;
}

export interface KeyTables {
  api_keys: ApiKeyTable;
  store_versions: StoreVersionTable;
  usage_counts: UsageCountTable;
  legacy_imports: LegacyImportTable;
}
