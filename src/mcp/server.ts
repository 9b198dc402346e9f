/**
 * The MCP tool layer, one for both transports: each tool calls the service's own HTTP route in-process
 * (`app.inject`) with the caller's key, so authentication, rate limits, quotas, caching, de-duplication and history
 * apply exactly as on the API. The call runs in a caller scope (src/operations/caller-scope.ts): the MCP request's
 * AbortSignal withdraws its lookups, and a lookup that waits on a marketplace sends progress notifications.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type {
  CallToolResult,
  ContentBlock,
  ServerNotification,
  ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { renderChart } from '../history/chart.js';
import type { Series } from '../history/series.js';
import { withCallerScope } from '../operations/caller-scope.js';
import { renderChartPng } from './chart-png.js';
import type { CatalogedRoute } from './route-catalog.js';
import type { ResolvedTool } from './tools.js';

export interface McpServerDeps {
  app: FastifyInstance;
  tools: readonly ResolvedTool[];
  /** The caller's credentials as the routes read them (`x-api-key` and/or `authorization`). */
  credentials: Record<string, string>;
  version: string;
  /** Progress notifications while a lookup waits on a marketplace: one at once, then one per interval. */
  progressIntervalMs: number;
  /** The lookup deadline (ms): the progress total. */
  deadlineMs: number;
  /** A marketplace's human name (`resale-a` → StockX), for progress messages. */
  siteOf: (marketplace: string) => string;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** One MCP server (one stdio process, or one HTTP session) acting as one key. */
export function createMcpServer(deps: McpServerDeps): McpServer {
  const server = new McpServer(
    { name: 'marketlens', version: deps.version },
    {
      instructions:
        'Live product data and price history from resale and retail marketplaces. Prices are in the currency each ' +
        'marketplace answered with (never converted); a value the marketplace lacks is null.',
    },
  );
  for (const tool of deps.tools) {
    server.registerTool(
      tool.declaration.name,
      {
        title: tool.declaration.title,
        description: tool.description,
        inputSchema: tool.input,
        outputSchema: tool.output.schema,
        annotations: { title: tool.declaration.title, ...tool.declaration.annotations },
      },
      (args: unknown, extra: Extra) => callTool(deps, tool, (args ?? {}) as Record<string, unknown>, extra),
    );
  }
  return server;
}

async function callTool(
  deps: McpServerDeps,
  tool: ResolvedTool,
  args: Record<string, unknown>,
  extra: Extra,
): Promise<CallToolResult> {
  const { declaration, route } = tool;
  const { chart, ...routeArgs } = declaration.chart ? args : { ...args, chart: undefined };
  const request = routeRequest(route, tool.where, routeArgs, declaration.fixedQuery);
  const progress = progressReporter(deps, extra);
  let res;
  try {
    res = await withCallerScope({ withdrawn: extra.signal, onUpstreamWait: progress?.waiting }, () =>
      inject(deps.app, {
        method: route.method,
        url: request.url,
        query: request.query,
        headers: { ...deps.credentials, ...(request.body ? { 'content-type': 'application/json' } : {}) },
        ...(request.body ? { payload: JSON.stringify(request.body) } : {}),
      }),
    );
  } finally {
    progress?.stop();
  }
  if (res.statusCode >= 400) return toolError(res.statusCode, res.body);
  const answer: unknown = res.statusCode === 204 || res.body === '' ? undefined : JSON.parse(res.body);
  const structured = tool.output.wrap(answer, args);
  const content: ContentBlock[] = [{ type: 'text', text: declaration.summarize(structured, args) }];
  if (declaration.chart && chart !== 'none') content.push(chartImage(structured, chart === 'svg' ? 'svg' : 'png'));
  return { content, structuredContent: structured };
}

/**
 * `app.inject` in its callback form: the request then runs in the caller's async context (the caller scope). Awaiting
 * the chain object inject returns starts it from a thenable job, which does not carry AsyncLocalStorage.
 */
function inject(app: FastifyInstance, options: InjectOptions): Promise<LightMyRequestResponse> {
  return new Promise((resolve, reject) => {
    void app.inject(options, (err, res) => (err || !res ? reject(err ?? new Error('no answer')) : resolve(res)));
  });
}

/** The tool's arguments as the route's path, query string and JSON body. */
function routeRequest(
  route: CatalogedRoute,
  where: ResolvedTool['where'],
  args: Record<string, unknown>,
  fixedQuery: Record<string, string> = {},
) {
  let url = route.url;
  const query: Record<string, string | string[]> = { ...fixedQuery };
  let body: Record<string, unknown> | undefined;
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined) continue;
    const part = where[name] ?? (route.method === 'GET' || route.method === 'DELETE' ? 'query' : 'body');
    if (part === 'path') url = url.replace(`:${name}`, encodeURIComponent(String(value)));
    else if (part === 'body') (body ??= {})[name] = value;
    // Repeated for a list: the routes read repeated parameters as the spec's comma list.
    else query[name] = Array.isArray(value) ? value.map(String) : String(value);
  }
  if (!body && route.method !== 'GET' && route.method !== 'DELETE' && route.body) body = {};
  return { url, query, body };
}

/** A problem answer as a tool error: its code, status and message, which an assistant can act on. */
function toolError(status: number, body: string): CallToolResult {
  let code = 'internal';
  let detail = body;
  try {
    const problem = JSON.parse(body) as { code?: unknown; detail?: unknown };
    if (typeof problem.code === 'string') code = problem.code;
    if (typeof problem.detail === 'string') detail = problem.detail;
  } catch {
    // not a problem document: the body as it is
  }
  return { isError: true, content: [{ type: 'text', text: `${code} (${status}): ${detail}` }] };
}

/**
 * The price history's series as a chart: PNG (what assistants' image inputs take) or the service's own SVG chart
 * (the renderer of `/api/v1/history?format=svg`).
 */
function chartImage(history: Record<string, unknown>, format: 'png' | 'svg'): ContentBlock {
  const series = (history.series ?? []) as Series[];
  if (format === 'png')
    return { type: 'image', mimeType: 'image/png', data: renderChartPng(series).toString('base64') };
  const title = `${String(history.operation)} ${String((history.params as Record<string, unknown>)?.query ?? '')}`;
  const interval = typeof history.interval === 'string' ? history.interval : undefined;
  const svg = renderChart(series, title, interval);
  return { type: 'image', mimeType: 'image/svg+xml', data: Buffer.from(svg).toString('base64') };
}

/**
 * Progress notifications for a client that asked for them (a progressToken): the first when a lookup starts waiting
 * on a marketplace, then one per interval until the answer. Progress is the time waited, of the deadline.
 */
function progressReporter(deps: McpServerDeps, extra: Extra) {
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  let started: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  let last = -1;
  const send = (message: string) => {
    // Progress must increase with each notification.
    const progress = Math.max(last + 1, Math.round(performance.now() - started!));
    last = progress;
    extra
      .sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress, total: deps.deadlineMs, message },
      })
      .catch(() => undefined); // a client gone away: the call is being cancelled anyway
  };
  let waitingOn = '';
  return {
    waiting(marketplace: string): void {
      waitingOn = deps.siteOf(marketplace);
      started ??= performance.now();
      send(`waiting on ${waitingOn}`);
      timer ??= setInterval(() => send(`still waiting on ${waitingOn}`), deps.progressIntervalMs);
      timer.unref();
    },
    stop(): void {
      if (timer) clearInterval(timer);
    },
  };
}
