/**
 * A database seen without its schema: any table, any column, values unknown. For code that names tables and columns
 * at run time (migrations, which run before the tables exist; the db API's whitelisted collections).
 */
export type UntypedTables = Record<string, Record<string, unknown>>;
