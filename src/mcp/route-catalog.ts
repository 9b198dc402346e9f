/**
 * Every HTTP route's schemas by its OpenAPI operationId, collected as routes are added (an `onRoute` hook made before
 * any route exists). A tool for a route is then one declaration naming its operationId (tool-specs.ts): its input
 * and output schemas and its description come from the route itself, whichever room registered it.
 */
import type { FastifyInstance, RouteOptions } from 'fastify';
import type { z } from 'zod';

export interface CatalogedRoute {
  method: string;
  /** Fastify's URL pattern, `:name` for a path parameter. */
  url: string;
  operationId: string;
  summary?: string;
  description?: string;
  params?: z.ZodType;
  querystring?: z.ZodType;
  body?: z.ZodType;
  /** By status code. */
  response: Record<string, z.ZodType>;
}

interface RouteSchema {
  operationId?: string;
  summary?: string;
  description?: string;
  params?: z.ZodType;
  querystring?: z.ZodType;
  body?: z.ZodType;
  response?: Record<string, z.ZodType>;
}

export class RouteCatalog {
  private readonly byId = new Map<string, CatalogedRoute>();

  /** Starts collecting: call before the routes are registered. */
  constructor(app: FastifyInstance) {
    app.addHook('onRoute', (route: RouteOptions) => this.add(route));
  }

  get(operationId: string): CatalogedRoute | undefined {
    return this.byId.get(operationId);
  }

  private add(route: RouteOptions): void {
    const schema = route.schema as RouteSchema | undefined;
    const method = Array.isArray(route.method) ? route.method[0] : route.method;
    // HEAD twins share the GET route's operationId: the GET one is the route a tool calls.
    if (!schema?.operationId || !method || method === 'HEAD' || this.byId.has(schema.operationId)) return;
    this.byId.set(schema.operationId, {
      method,
      url: route.url,
      operationId: schema.operationId,
      summary: schema.summary,
      description: schema.description,
      params: schema.params,
      querystring: schema.querystring,
      body: schema.body,
      response: schema.response ?? {},
    });
  }
}
