/**
 * The MCP server's place in the app: the tools (resolved from the route catalog on first use, once every route is
 * registered), a server per caller, and Streamable HTTP at /mcp. `marketlens mcp` (stdio.ts) uses the same tools.
 */
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Config } from '../config.js';
import type { Registry } from '../operations/registry.js';
import { registerMcpHttp } from './http.js';
import type { RouteCatalog } from './route-catalog.js';
import { resolveTools, type ResolvedTool } from './tools.js';
import { lookupTools, routeTools } from './tool-specs.js';

export { RouteCatalog } from './route-catalog.js';

/** Progress notifications while a lookup waits: one at once, then one per this interval. */
const PROGRESS_INTERVAL_MS = 5_000;

declare module 'fastify' {
  interface FastifyInstance {
    mcp: {
      /** Every tool whose route is registered. */
      tools(): readonly ResolvedTool[];
      /** An MCP server acting as the key in `credentials` (`x-api-key` and/or `authorization`). */
      serverFor(credentials: Record<string, string>): Promise<McpServer>;
    };
  }
}

export interface McpDeps {
  catalog: RouteCatalog;
  registry: Registry;
  config: Config;
  version: string;
  /** Authenticates the caller (no counting: each tool call counts, through the route it calls). */
  authenticate: onRequestHookHandler;
}

export function registerMcp(app: FastifyInstance, deps: McpDeps): void {
  let tools: ResolvedTool[] | undefined;
  const resolved = () =>
    (tools ??= resolveTools(deps.catalog, [...lookupTools(deps.registry, deps.config), ...routeTools(deps.registry)]));
  app.decorate('mcp', {
    tools: resolved,
    // The SDK is loaded with the first MCP client, not at every start.
    serverFor: async (credentials: Record<string, string>) =>
      (await import('./server.js')).createMcpServer({
        app,
        tools: resolved(),
        credentials,
        version: deps.version,
        progressIntervalMs: PROGRESS_INTERVAL_MS,
        deadlineMs: deps.config.deadlineMs,
        siteOf: (id) => deps.registry.marketplace(id).site,
      }),
  });
  registerMcpHttp(app, { authenticate: deps.authenticate });
}
