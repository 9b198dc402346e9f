/**
 * One log line per request, when it completes: method, URL, client address, status and time, in pino's JSON line
 * format with the request id. Fastify's default is two lines (an "incoming request" with the serialised request,
 * then "request completed"). A successful request's line is written straight to the log stream: through pino
 * (bindings, a redaction pass, generic serialisation) it cost more than the cached lookup it describes (issue 21).
 * A failed request's line goes through pino as any error does.
 */
import { hostname } from 'node:os';
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/** pino's `info` level number. */
const INFO = 30;
const LEVELS: Record<string, number> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: Infinity,
};

export class AccessLog extends LogController {
  /**
   * Whether completed requests' lines are written (`info` and below). Callers check it before working out a line's
   * fields: the client address behind a trusted proxy is a walk through X-Forwarded-For, per request.
   */
  readonly writes: boolean;
  /** `{"level":30,"time":` … the fixed part of every line, as pino writes it. */
  private readonly head = '{"level":30,"time":';
  private readonly bindings = `,"pid":${process.pid},"hostname":${JSON.stringify(hostname())},"reqId":`;

  /** @example new AccessLog(stream, 'info') */
  constructor(
    private readonly out: NodeJS.WritableStream,
    level: string,
  ) {
    super();
    this.writes = (LEVELS[level] ?? INFO) <= INFO;
  }

  /** At `debug` only (a no-op call otherwise): the access line comes at completion. */
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ method: request.method, url: request.url }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) {
      reply.log.error({ ...this.fields(request, reply), err: error }, 'request errored');
      return;
    }
    if (!this.writes) return;
    this.completed(request.id, request.method, request.url, request.ip, reply.statusCode, reply.elapsedTime);
  }

  /** The line of a request that completed without error (also written by the cached-hit path, hit-path.ts). */
  completed(id: string, method: string, url: string, ip: string | undefined, status: number, ms: number): void {
    if (!this.writes) return;
    this.out.write(
      `${this.head}${Date.now()}${this.bindings}${JSON.stringify(id)},"method":${JSON.stringify(method)},` +
        `"url":${JSON.stringify(url)},"remoteAddress":${JSON.stringify(ip ?? null)},` +
        `"statusCode":${status},"responseTime":${ms},"msg":"request completed"}\n`,
    );
  }

  private fields(request: FastifyRequest, reply: FastifyReply) {
    return {
      method: request.method,
      url: request.url,
      remoteAddress: request.ip,
      statusCode: reply.statusCode,
      responseTime: reply.elapsedTime,
    };
  }
}
