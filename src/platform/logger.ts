/**
 * The service's logger type, for code below the server that must not import Fastify or pino: pino's shape, so app.log
 * and pino loggers fit it as they are (`log.warn(ctx, msg)`), and a test's fake is three small functions.
 */
export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}
