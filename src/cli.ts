#!/usr/bin/env node
/**
 * The `marketlens` binary (CONTRACT §5): serve | keys create|list|revoke | lookup | parse | record | track add|list|remove, and --replay.
 */
import { trackCommand } from './history/track-cli.js';
import { readFileSync, renameSync } from 'node:fs';
import { dirname, resolve as resolvePath } from 'node:path';
import { ConfigError, loadConfig as loadConfigFrom, readEnv, type Config } from './config.js';
import { MarketlensError } from './errors.js';
import { KeyStore } from './keys/key-store.js';
import { readUsageCounts } from './limits/usage-report.js';
import { LookupService, parseAndCheck } from './operations/lookup.js';
import { getOperation } from './operations/registry.js';
import { OPERATION_NAMES, type Operation } from './operations/types.js';
import { buildApp } from './server/app.js';
import { createHttpClient } from './upstream/create-client.js';
import { HarRecorder } from './upstream/har.js';

const USAGE = `marketlens — self-hosted product-data API

Usage:
  marketlens serve                              run the HTTP service (MARKETLENS_HOST/PORT)
  marketlens keys create [--name N] [--rate 600/min] [--daily N] [--monthly N]
  marketlens keys list                          ids, names, prefixes, status, usage (never the keys)
  marketlens keys revoke <id|prefix>
  marketlens lookup <operation> key=value…      run one operation live, print the record
  marketlens track add <operation> key=value… [--interval 15m]   refetch a lookup on schedule (price history)
  marketlens track list | track remove <id>
  marketlens parse <operation> FILE… [key=value…]  parse saved upstream responses, print the record
  marketlens record <operation> key=value… [--out FILE.har]  run one lookup live, save its upstream exchanges (HAR 1.2)

Global flag:
  --replay FILE.har                             answer upstream requests from a HAR file instead of the network

Operations: ${OPERATION_NAMES.join(', ')}
Configuration: MARKETLENS_* environment variables or .env (see README).`;

async function main(args: string[]): Promise<number> {
  const { argv, replay } = takeReplayFlag(args);
  // `--replay FILE.har` is the same setting as MARKETLENS_REPLAY, validated by the one config loader.
  const loadConfig = () => loadConfigFrom(replay === undefined ? readEnv() : { ...readEnv(), MARKETLENS_REPLAY: replay });
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return serve(loadConfig());
    case 'keys':
      return keys(loadConfig(), rest);
    case 'lookup':
      return lookup(loadConfig(), rest);
    case 'parse':
      return parse(loadConfig(), rest);
    case 'record':
      return record(loadConfig(), rest);
    case 'track':
      return trackCommand(loadConfig(), rest);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      console.log(USAGE);
      return command === undefined ? 1 : 0;
    default:
      console.error(`Unknown command "${command}".\n\n${USAGE}`);
      return 2;
  }
}

async function serve(config: Config): Promise<number> {
  const keyStore = new KeyStore(config.dataDir, config.apiKeys);
  if (!keyStore.hasUsableKey()) {
    // The service never runs open: the first start mints a key and shows it this once (only its hash is stored).
    const { key } = keyStore.create('generated on first start');
    process.stdout.write(
      `\n  No API key was configured, so one was created. It is shown only this once:\n\n      ${key}\n\n` +
        `  Send it as the x-api-key header. Manage keys with \`marketlens keys\`.\n\n`,
    );
  }
  const app = await buildApp({ config, keys: keyStore });
  const shutdown = async (signal: string) => {
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    app.marketlens.state.ready = false;
    // SIGTERM comes from an orchestrator: keep serving (with /readyz at 503) long enough for its load balancer to
    // notice and stop sending traffic, then close. Ctrl-C (SIGINT) is a person at a terminal: close at once.
    if (signal === 'SIGTERM' && config.shutdownDelayMs > 0) await new Promise((r) => setTimeout(r, config.shutdownDelayMs));
    await app.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  await app.listen({ host: config.host, port: config.port });
  return -1; // keep running
}

async function keys(config: Config, args: string[]): Promise<number> {
  const store = new KeyStore(config.dataDir, config.apiKeys);
  const [sub, ...rest] = args;
  const flag = (name: string) => {
    const i = rest.indexOf(`--${name}`);
    return i === -1 ? undefined : rest[i + 1];
  };
  if (sub === 'create') {
    const { key, record } = store.create(flag('name') ?? 'default', {
      ...(flag('rate') ? { rate_limit: flag('rate') } : {}),
      ...(flag('daily') ? { daily_quota: Number(flag('daily')) } : {}),
      ...(flag('monthly') ? { monthly_quota: Number(flag('monthly')) } : {}),
    });
    console.log(JSON.stringify({ id: record.id, name: record.name, key }, null, 2));
    console.error('Store this key now: only its hash is kept.');
    return 0;
  }
  if (sub === 'list') {
    const listed = store.list();
    // Requests counted this UTC day and month (from Redis, or the server's usage file in the data directory).
    const usage = await readUsageCounts(config, listed.map((k) => k.id));
    const rows = listed.map((k) => ({
      id: k.id,
      name: k.name,
      prefix: `${k.prefix}…`,
      source: k.source,
      status: k.revoked_at ? 'revoked' : 'active',
      created_at: k.created_at || null,
      rate_limit: k.rate_limit ?? null,
      daily_quota: k.daily_quota ?? null,
      monthly_quota: k.monthly_quota ?? null,
      used_today: usage.get(k.id)?.used_today ?? 0,
      used_this_month: usage.get(k.id)?.used_this_month ?? 0,
    }));
    console.log(JSON.stringify(rows, null, 2));
    return 0;
  }
  if (sub === 'revoke' && rest[0]) {
    const k = store.revoke(rest[0]);
    if (!k) {
      console.error(`No single stored key matches "${rest[0]}" (use an id or prefix from \`marketlens keys list\`).`);
      return 1;
    }
    console.log(JSON.stringify({ id: k.id, revoked_at: k.revoked_at }));
    return 0;
  }
  console.error('Usage: marketlens keys create|list|revoke <id|prefix>');
  return 2;
}

function requireOperation(name: string | undefined): Operation {
  const op = name === undefined ? undefined : getOperation(name);
  if (!op) throw new UsageError(`Unknown operation "${name ?? ''}". Operations: ${OPERATION_NAMES.join(', ')}`);
  return op;
}

/** `key=value` words → validated operation parameters (same schema and messages as the HTTP route). */
function operationParams(op: Operation, words: string[], partial = false): Record<string, unknown> {
  const raw: Record<string, string> = {};
  for (const w of words) {
    const eq = w.indexOf('=');
    if (eq <= 0) throw new UsageError(`Expected key=value, got "${w}"`);
    raw[w.slice(0, eq)] = w.slice(eq + 1);
  }
  const parsed = (partial ? op.params.partial() : op.params).safeParse(raw);
  if (!parsed.success) {
    const msg = parsed.error.issues.map((i) => `${i.path.join('.') || (i as { keys?: string[] }).keys?.join(', ')}: ${i.message}`);
    throw new UsageError(`Invalid parameters for ${op.name}: ${msg.join('; ')}`);
  }
  return parsed.data;
}

async function lookup(config: Config, args: string[]): Promise<number> {
  const op = requireOperation(args[0]);
  const params = operationParams(op, args.slice(1));
  const http = createHttpClient(config);
  try {
    const result = await new LookupService(config, http).run(op, params, { signal: AbortSignal.timeout(config.deadlineMs) });
    console.log(JSON.stringify(JSON.parse(result.json), null, 2));
    if (result.missingParts.length > 0) console.error(`Missing parts: ${result.missingParts.join(', ')}`);
    return 0;
  } finally {
    await http.close?.();
  }
}

function parse(_config: Config, args: string[]): number {
  const op = requireOperation(args[0]);
  const files = args.slice(1).filter((a) => !/^[a-z_]+=/.test(a));
  const params = operationParams(
    op,
    args.slice(1).filter((a) => /^[a-z_]+=/.test(a)),
    true, // parsing saved files needs no upstream identifiers
  );
  if (files.length === 0) throw new UsageError(`Usage: marketlens parse ${op.name} FILE… [key=value…]`);
  const saved = files.map((path) => ({ path, text: readFileSync(path, 'utf8') }));
  const record = parseAndCheck(op, op.bodiesFromFiles(saved, params), params);
  console.log(JSON.stringify(record, null, 2));
  return 0;
}

/**
 * `--replay FILE.har` anywhere on the line: every command (lookup, serve) then reads upstream answers from the HAR.
 */
function takeReplayFlag(args: string[]): { argv: string[]; replay?: string } {
  const i = args.indexOf('--replay');
  if (i === -1) return { argv: args };
  const file = args[i + 1];
  if (!file) throw new UsageError('--replay needs a HAR file: --replay FILE.har');
  return { argv: [...args.slice(0, i), ...args.slice(i + 2)], replay: file };
}

/** `marketlens record <operation> key=value… [--out FILE.har]`: a live lookup whose upstream exchanges are saved. */
async function record(config: Config, args: string[]): Promise<number> {
  const outAt = args.indexOf('--out');
  const out = outAt === -1 ? undefined : args[outAt + 1];
  if (outAt !== -1 && !out) throw new UsageError('--out needs a file name: --out lookup.har');
  const words = outAt === -1 ? args : [...args.slice(0, outAt), ...args.slice(outAt + 2)];
  const op = requireOperation(words[0]);
  const params = operationParams(op, words.slice(1));
  const recorder = new HarRecorder(out ? dirname(resolvePath(out)) : (config.recordDir ?? '.'));
  const http = createHttpClient(config, undefined, { recorder });
  try {
    const result = await new LookupService(config, http).run(op, params, { signal: AbortSignal.timeout(config.deadlineMs) });
    console.log(JSON.stringify(JSON.parse(result.json), null, 2));
    return 0;
  } finally {
    await http.close?.();
    // Saved even when the lookup failed: a HAR of what upstream said is what a parser fix starts from.
    const [file] = recorder.files;
    if (file && out) renameSync(file, out);
    if (file) console.error(`Saved upstream exchanges to ${out ?? file}`);
    else console.error('No upstream exchange completed; nothing was saved.');
  }
}

class UsageError extends Error {}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (e: unknown) => {
    if (e instanceof ConfigError || e instanceof UsageError) console.error(e.message);
    else if (e instanceof MarketlensError) console.error(`${e.code}: ${e.message}`);
    else console.error(e);
    process.exitCode = e instanceof UsageError ? 2 : 1;
  },
);
