/**
 * The Fastify app factory: wires configuration, keys, the upstream client and the lookup service into routes.
 * Tests build it with a config pointing the marketplaces at a fake upstream and use `app.inject`.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Config } from '../config.js';
import { MarketlensError } from '../errors.js';
import { KeyStore } from '../keys/key-store.js';
import { LookupService } from '../operations/lookup.js';
import type { HttpClient } from '../upstream/http-client.js';
import { createHttpClient } from '../upstream/create-client.js';
import { makeAuthenticate } from './auth.js';
import { Metrics } from './metrics.js';
import { registerOpenApi } from './openapi.js';
import { operationPaths, registerOperationRoutes } from './operation-routes.js';
import { normaliseError, sendProblem } from './problem.js';

export const VERSION = '0.1.0';

export interface AppDeps {
  config: Config;
  keys?: KeyStore;
  http?: HttpClient;
  metrics?: Metrics;
  /** A pino destination for tests that assert on log lines. */
  logStream?: NodeJS.WritableStream;
}

export interface AppState {
  /** False once shutdown began: /readyz answers 503 so the load balancer stops sending traffic. */
  ready: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    marketlens: { state: AppState; metrics: Metrics; keys: KeyStore; lookup: LookupService };
  }
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const metrics = deps.metrics ?? new Metrics();
  const keys = deps.keys ?? new KeyStore(config.dataDir, config.apiKeys);
  const http: HttpClient = deps.http ?? createHttpClient(config, metrics);
  const lookup = new LookupService(config, http);
  const state: AppState = { ready: true };

  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: {
        paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie', 'headers["x-api-key"]'],
        censor: '[redacted]',
      },
      ...(deps.logStream ? { stream: deps.logStream } : {}),
    },
    // Echo a sane caller-supplied X-Request-Id, otherwise mint one.
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    bodyLimit: 64 * 1024,
    return503OnClosing: false,
  });
  app.decorate('marketlens', { state, metrics, keys, lookup });
  // Spec 4.1 sends its query as a JSON body on GET.
  app.addHttpMethod('GET', { hasBody: true, overrideExisting: true } as { hasBody: boolean });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    const labels = { route, method: req.method, status: String(reply.statusCode) };
    metrics.requests.inc(labels);
    metrics.requestDuration.observe(labels, reply.elapsedTime / 1000);
  });

  app.setErrorHandler((e, req, reply) => {
    const err = normaliseError(e);
    if (err.code === 'internal') req.log.error({ err: e }, 'unhandled error');
    else if (err.code === 'upstream_changed') req.log.warn({ code: err.code, detail: err.message, ...err.logContext }, 'upstream format changed');
    else if (err.status >= 500) req.log.warn({ code: err.code, detail: err.message, ...err.logContext }, 'upstream failure');
    return sendProblem(reply, err);
  });

  const knownPaths = new Set<string>(['/healthz', '/readyz', '/openapi.json', '/metrics', ...operationPaths()]);
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0]!;
    if (knownPaths.has(path)) {
      reply.header('allow', 'GET, HEAD');
      return sendProblem(reply, new MarketlensError('method_not_allowed', `${req.method} is not allowed on ${path}; use GET`));
    }
    return sendProblem(reply, new MarketlensError('route_not_found', `No route ${req.method} ${path}; see /docs`));
  });

  await registerOpenApi(app, VERSION);

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    const body = { status: state.ready ? 'ready' : 'shutting_down', checks: { server: state.ready ? 'ok' : 'closing' } };
    return reply.code(state.ready ? 200 : 503).send(body);
  });

  const authenticate = makeAuthenticate(keys);
  app.get('/metrics', {
    schema: { hide: true },
    onRequest: config.metricsPublic ? [] : [authenticate],
    handler: async (_req, reply) => reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  });

  registerOperationRoutes(app, { lookup, deadlineMs: config.deadlineMs, authenticate });

  app.addHook('onClose', async () => {
    await http.close?.();
  });
  return app;
}
