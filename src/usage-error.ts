/** A command line the CLI cannot run as written: printed as its message alone, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}
