/** Tables of migration 0006: the dashboard's session-signing secret, shared by every instance on the database. */

export interface DashboardSecretTable {
  /** `session`: the HMAC key that signs session cookies. */
  name: string;
  /** base64url of 32 random bytes */
  value: string;
  /** epoch ms */
  created_at: number;
}

export interface DashboardTables {
  dashboard_secrets: DashboardSecretTable;
}
