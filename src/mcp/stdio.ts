/**
 * `marketlens mcp`: the MCP server on stdin/stdout, for a local assistant. The app is built in this process (the
 * usual configuration, no listening port) and the tools call its routes as the key from MARKETLENS_API_KEY or
 * `--key`, exactly as the HTTP transport does. stdout carries only the protocol: logs and errors go to stderr.
 *
 * Unlike the other commands that run lookups (`lookup`, `product`: src/core/command-core.ts), this one keeps a Fastify
 * app: its tools ARE the routes (their schemas, validation, auth, limits and answers, called through app.inject).
 */
import type { Config } from '../config.js';
import { UsageError } from '../usage-error.js';

export async function mcpCommand(config: Config, args: string[]): Promise<number> {
  const key = keyFrom(args) ?? config.mcpApiKey;
  if (!key) {
    throw new UsageError(
      'marketlens mcp needs an API key: set MARKETLENS_API_KEY or pass --key <key> (see `marketlens keys create`)',
    );
  }
  const [{ buildApp }, { StdioServerTransport }] = await Promise.all([
    import('../server/app.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
  ]);
  const app = await buildApp({ config, logStream: process.stderr, hitPath: false });
  await app.ready();
  const check = app.marketlens.keys.verify(key);
  if (!check.ok) {
    await app.close();
    console.error(
      check.reason === 'disabled'
        ? 'marketlens mcp: this API key has been revoked'
        : 'marketlens mcp: the API key is not valid here (check MARKETLENS_API_KEY or --key, and the database)',
    );
    return 1;
  }
  const transport = new StdioServerTransport();
  let closing = false;
  const shutdown = async () => {
    if (closing) return;
    closing = true;
    await app.close();
    process.exit(0);
  };
  // The assistant ends the server by closing our stdin (or with a signal).
  process.stdin.once('end', () => void shutdown());
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
  transport.onclose = () => void shutdown();
  await (await app.mcp.serverFor({ 'x-api-key': key })).connect(transport);
  return -1; // keep running
}

/** `--key K` (or `--key=K`); anything else is a usage error. */
function keyFrom(args: string[]): string | undefined {
  let key: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--key') key = args[++i];
    else if (a.startsWith('--key=')) key = a.slice('--key='.length);
    else throw new UsageError(`Unknown argument "${a}". Usage: marketlens mcp [--key <key>]`);
    if (!key) throw new UsageError('--key needs a value');
  }
  return key;
}
