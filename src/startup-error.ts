/**
 * A start-up failure the operator fixes with a setting (port in use, database unreachable, data directory not
 * writable): printed as its one-line message, no stack trace, exit code 1.
 */
export class StartupError extends Error {
  override name = 'StartupError';
}

/** What `listen()` failed with, as the setting to change. Anything unrecognised is left as it is. */
export function listenFailure(e: unknown, host: string, port: number): unknown {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') {
    return new StartupError(`port ${port} is in use on ${host}: set MARKETLENS_PORT, or stop what listens there`);
  }
  if (code === 'EACCES') {
    return new StartupError(
      `port ${port} on ${host} needs privileges this process lacks: set MARKETLENS_PORT to 1024 or above`,
    );
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new StartupError(`${host} is not an address of this machine: set MARKETLENS_HOST (0.0.0.0 = every one)`);
  }
  return e;
}
