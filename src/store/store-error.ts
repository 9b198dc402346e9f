/**
 * A database that cannot be opened, read or migrated. Raised at start-up (and by CLI commands) with a message naming
 * the file or server, so the operator sees what to fix instead of a stack trace or a 500 at runtime.
 */
export class StoreError extends Error {
  override name = 'StoreError';
}
