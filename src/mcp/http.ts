/**
 * Streamable HTTP at /mcp. The API key as on every route (`x-api-key` or `Authorization: Bearer`), checked on every
 * message: no key → 401, a revoked key → 403 at once, even inside a session. Calling /mcp itself is free; each tool
 * call counts against the key's rate limit and quota through the route it calls.
 *
 * Sessions (the protocol's `Mcp-Session-Id`) live in this process: they carry cancellation and progress for a call
 * between the client's separate HTTP requests. Behind several instances, route a session to the instance that
 * opened it (sticky sessions). A session belongs to the key that opened it, and closes after an idle while.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { z } from 'zod';
import { MarketlensError } from '../errors.js';

export const MCP_PATH = '/mcp';
/** A session nobody used for this long is closed (the client opens a new one). */
const SESSION_IDLE_MS = 30 * 60_000;
/** Open sessions at most, per process: past it a new one is refused (503) until one closes. */
const MAX_SESSIONS = 1000;

interface Session {
  transport: StreamableHTTPServerTransport;
  keyId: string;
  idle?: NodeJS.Timeout;
}

export interface McpHttpDeps {
  authenticate: onRequestHookHandler;
}

export function registerMcpHttp(app: FastifyInstance, deps: McpHttpDeps): void {
  const sessions = new Map<string, Session>();
  const close = (id: string) => {
    const s = sessions.get(id);
    if (!s) return;
    sessions.delete(id);
    clearTimeout(s.idle);
    void s.transport.close();
  };
  const touch = (id: string, s: Session) => {
    clearTimeout(s.idle);
    s.idle = setTimeout(() => close(id), SESSION_IDLE_MS);
    s.idle.unref();
  };
  app.addHook('onClose', async () => {
    for (const id of [...sessions.keys()]) close(id);
  });

  app.route({
    method: ['GET', 'POST', 'DELETE'],
    url: MCP_PATH,
    exposeHeadRoute: false,
    onRequest: deps.authenticate,
    // JSON-RPC messages: the MCP SDK checks them.
    schema: { hide: true, body: z.unknown() },
    handler: async (req, reply) => {
      const keyId = req.apiKey!.id;
      const header = req.headers['mcp-session-id'];
      const sessionId = Array.isArray(header) ? header[0] : header;
      let session = sessionId === undefined ? undefined : sessions.get(sessionId);
      if (sessionId !== undefined && (!session || session.keyId !== keyId)) {
        // The protocol's answer to an unknown session (the client starts a new one); another key's session is unknown.
        throw new MarketlensError('route_not_found', `No MCP session ${sessionId} for this API key`);
      }
      if (!session) {
        // The SDK is loaded with the first MCP client, not at every start.
        const [{ StreamableHTTPServerTransport }, { isInitializeRequest }] = await Promise.all([
          import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
          import('@modelcontextprotocol/sdk/types.js'),
        ]);
        if (req.method !== 'POST' || !isInitializeRequest(req.body)) {
          throw new MarketlensError(
            'invalid_parameter',
            'Mcp-Session-Id: missing; start a session with an initialize request',
          );
        }
        if (sessions.size >= MAX_SESSIONS) {
          throw new MarketlensError('overloaded', 'Too many open MCP sessions; retry shortly', { retryAfter: 5 });
        }
        const opened: Session = {
          keyId,
          transport: new StreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: (id) => {
              sessions.set(id, opened);
              touch(id, opened);
            },
          }),
        };
        opened.transport.onclose = () => {
          if (opened.transport.sessionId) close(opened.transport.sessionId);
        };
        await (await app.mcp.serverFor(credentialsOf(req.headers))).connect(opened.transport);
        session = opened;
      } else {
        touch(sessionId!, session);
      }
      reply.hijack();
      await session.transport.handleRequest(req.raw, reply.raw, req.body);
    },
  });
}

/** The key as the client sent it, for the routes the tools call (they check it again, and count the call). */
function credentialsOf(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  const key = headers['x-api-key'];
  if (key !== undefined) out['x-api-key'] = Array.isArray(key) ? key[0]! : key;
  if (headers.authorization !== undefined) out.authorization = headers.authorization;
  return out;
}
