/**
 * The service's logger type, for code below the server that must not import Fastify or pino: pino's shape, so app.log
 * and pino loggers fit it as they are (`log.warn(ctx, msg)`). `SILENT_LOGGER` is the one that says nothing (CLI
 * shims and tests that do not read the log).
 */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

const nothing = (): void => undefined;

export const SILENT_LOGGER: Logger = { debug: nothing, info: nothing, warn: nothing, error: nothing };
