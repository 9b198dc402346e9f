/**
 * The service's logger types, for code below the server that must not import Fastify or pino. `Logger` is pino's
 * shape (app.log and pino loggers fit it as they are); `LevelLog` is the callback form features take when they only
 * report trouble.
 */
export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Reports a warning or an error with its context (e.g. `(level, msg, ctx) => app.log[level](ctx ?? {}, msg)`). */
export type LevelLog = (level: 'warn' | 'error', msg: string, ctx?: Record<string, unknown>) => void;
