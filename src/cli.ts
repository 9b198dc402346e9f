#!/usr/bin/env node
/**
 * The `marketlens` binary (CONTRACT §5): serve | keys create|list|revoke | lookup | parse | record | track add|list|remove | product, and --replay.
 */
// First, before any other module allocates: the V8 flags the service runs with (every entry point comes through here).
import { SILENT_LOGGER } from './platform/logger.js';
import './v8-flags.js';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { dirname, resolve as resolvePath } from 'node:path';
import {
  ConfigError,
  launchedByNpmStart,
  loadConfig as loadConfigFrom,
  rateSpec,
  readEnv,
  type Config,
} from './config.js';
import { MarketlensError } from './errors.js';
import { InvalidKeyOptions, type KeyStore } from './keys/key-store.js';
import { openKeys } from './keys/open-keys.js';
import { readUsageCounts } from './limits/usage-report.js';
import { OPERATION_NAMES, type Operation } from './operations/types.js';
import { printRecord, printRows, takeFormat } from './cli-output.js';
import { StartupError, listenFailure } from './startup-error.js';
import { UsageError } from './usage-error.js';
import { StoreError, migrateToLatest, migrationStatus, openStore, type Store } from './store/index.js';

const USAGE = `marketlens — self-hosted product-data API

Usage:
  marketlens serve                              run the HTTP service (MARKETLENS_HOST/PORT)
  marketlens --version                          the installed version
  marketlens keys create [--name N] [--rate 600/min] [--daily N] [--monthly N]
  marketlens keys list                          ids, names, prefixes, status, usage (never the keys)
  marketlens keys revoke <id|prefix>
  marketlens db migrate                         apply pending database migrations (also done at every start)
  marketlens db status                          the database in use and its migrations
  marketlens db backup FILE                     online copy of the SQLite database (PostgreSQL: use pg_dump)
  marketlens webhooks add|list|remove|test       alert subscriptions (see \`marketlens webhooks\`)
  marketlens lookup <operation> key=value…      run one operation live, print the record
  marketlens track add <operation> key=value… [--interval 15m]   refetch a lookup on schedule (price history)
  marketlens track list | track remove <id> | track pause|resume <id>
  marketlens product <sku> [--size 10] [--country US] [--currency USD] [--json]
                                                one product across StockX, GOAT and Nike, per size (live)
  marketlens parse <operation> FILE… [key=value…]  parse saved upstream responses, print the record
  marketlens record <operation> key=value… [--out FILE.har]  run one lookup live, save its upstream exchanges (HAR 1.2)
  marketlens mcp [--key K]                      MCP server on stdio for a local assistant (key: MARKETLENS_API_KEY)
  marketlens doctor [operation…] [operation.param=value…] [--tier T] [--json]
                                                one known lookup per operation, live: what answers, through which tier

Global flags:
  --replay FILE.har                             answer upstream requests from a HAR file instead of the network
  --json | --table                              keys, db and track output: JSON (the default when piped) or a table
                                                (the default on a terminal); keys are snake_case, as in the API

Operations: ${OPERATION_NAMES.join(', ')}
Configuration: MARKETLENS_* environment variables or .env (docs/configuration.md, .env.example).`;

async function main(args: string[]): Promise<number> {
  const { argv, replay } = takeReplayFlag(args);
  // `--replay FILE.har` is the same setting as MARKETLENS_REPLAY, validated by the one config loader.
  const loadConfig = () =>
    loadConfigFrom(replay === undefined ? readEnv() : { ...readEnv(), MARKETLENS_REPLAY: replay });
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return serve(loadConfig());
    case 'keys':
      return keys(loadConfig(), rest);
    case 'db':
      return db(loadConfig(), rest);
    case 'lookup':
      return lookup(loadConfig(), rest);
    case 'webhooks':
      return (await import('./alerts/cli.js')).webhooksCommand(loadConfig(), rest);
    case 'parse':
      return parse(loadConfig(), rest);
    case 'record':
      return record(loadConfig(), rest);
    case 'doctor':
      return (await import('./status/doctor-command.js')).doctorCommand(loadConfig(), rest);
    case 'track':
      return (await import('./history/track-cli.js')).trackCommand(loadConfig(), rest);
    case '--version':
    case '-v':
    case 'version':
      console.log((await import('./version.js')).VERSION);
      return 0;
    case 'mcp':
      return (await import('./mcp/stdio.js')).mcpCommand(loadConfig(), rest);
    case 'product':
      return (await import('./products/cli.js')).productCommand(loadConfig(), rest);
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

/** Set in a cluster worker: its IPC channel would keep a worker that failed to start alive, so it exits instead. */
let clusterWorker = false;

async function serve(config: Config): Promise<number> {
  const cluster = config.workers > 1 ? (await import('node:cluster')).default : undefined;
  clusterWorker = cluster?.isWorker ?? false;
  if (cluster?.isPrimary) {
    // MARKETLENS_WORKERS > 1: this process prepares the database and runs the workers; each worker comes back here.
    const { runPrimary } = await import('./server/cluster.js');
    await runPrimary(config, (log) =>
      withStore(config, async (store) => {
        const keyStore = await openKeys(store, config, log, false);
        try {
          await showFirstKey(keyStore);
        } finally {
          keyStore.close();
        }
      }),
    );
    return -1; // keep running
  }
  // Opens (and migrates) the database, imports legacy key files once; a bad database stops here with its name.
  const { buildApp } = await import('./server/app.js');
  const app = await buildApp({ config });
  // A worker's primary has already done this, before forking.
  if (!cluster) await showFirstKey(app.marketlens.keys);
  const shutdown = async (signal: string) => {
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    app.marketlens.state.ready = false;
    // SIGTERM comes from an orchestrator: keep serving (with /readyz at 503) long enough for its load balancer to
    // notice and stop sending traffic, then close. Ctrl-C (SIGINT) is a person at a terminal: close at once.
    if (signal === 'SIGTERM' && config.shutdownDelayMs > 0)
      await new Promise((r) => setTimeout(r, config.shutdownDelayMs));
    // In-flight requests get MARKETLENS_SHUTDOWN_TIMEOUT_MS to finish; then every connection is cut and we exit.
    const grace = setTimeout(() => {
      app.log.warn(
        { open: app.marketlens.connections.open, timeoutMs: config.shutdownTimeoutMs },
        'shutdown grace over: closing remaining connections',
      );
      app.marketlens.connections.destroyAll();
      process.exit(1);
    }, config.shutdownTimeoutMs);
    const closed = app.close();
    // A connection with no request being answered (silent, half a request line, idle keep-alive) would hold the close
    // until its own timeout: end those now, and each one that becomes idle as its answer is sent.
    const sweep = setInterval(() => app.marketlens.connections.closeIdle(), 100);
    app.marketlens.connections.closeIdle();
    await closed;
    clearInterval(sweep);
    clearTimeout(grace);
    process.exit(0);
  };
  if (cluster) {
    // A worker: the primary forwards the signal, and a terminal's Ctrl-C reaches the worker too; one drain for both.
    let stopping = false;
    const once = (signal: string) => () => {
      if (!stopping) void shutdown(signal);
      stopping = true;
    };
    process.on('SIGTERM', once('SIGTERM'));
    process.on('SIGINT', once('SIGINT'));
  } else {
    process.once('SIGTERM', () => void shutdown('SIGTERM'));
    process.once('SIGINT', () => void shutdown('SIGINT'));
  }
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (e) {
    // Port in use, an address this machine lacks: one line naming the setting (main prints it), after the database
    // and every other resource the app opened are released, so the process can exit.
    await app.close();
    throw listenFailure(e, config.host, config.port);
  }
  return -1; // keep running
}

/** The service never runs open: the first start mints a key and shows it this once (only its hash is stored). */
async function showFirstKey(keyStore: KeyStore): Promise<void> {
  if (keyStore.hasUsableKey()) return;
  const { key } = await keyStore.create('generated on first start');
  process.stdout.write(
    `\n  No API key was configured, so one was created. It is shown only this once:\n\n      ${key}\n\n` +
      `  Send it as the x-api-key header. Manage keys with \`${cliCommand()} keys\`.\n\n`,
  );
}

/**
 * How to run this CLI from where it was started: `npm run marketlens --` in a checkout (its bin is not on PATH there),
 * `marketlens` where it is installed (npm's global bin, the Docker image's PATH).
 */
function cliCommand(): string {
  if (launchedByNpmStart() || existsSync(resolvePath(process.cwd(), 'src/cli.ts'))) {
    return 'npm run marketlens --';
  }
  return 'marketlens';
}

/** A CLI process needs one or two connections, not a server's pool. */
const CLI_POOL = 2;
const quietLog = SILENT_LOGGER;

async function withStore<T>(config: Config, work: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(config, quietLog, { poolSize: CLI_POOL });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

const CREATE_FLAGS = ['name', 'rate', 'daily', 'monthly'] as const;

/** `--name N --rate 600/min --daily N --monthly N` → values; anything else is a usage error (nothing is stored). */
function createFlags(args: string[]): Partial<Record<(typeof CREATE_FLAGS)[number], string>> {
  const out: Partial<Record<(typeof CREATE_FLAGS)[number], string>> = {};
  for (let i = 0; i < args.length; i += 2) {
    const name = args[i]!.replace(/^--/, '') as (typeof CREATE_FLAGS)[number];
    if (!args[i]!.startsWith('--') || !CREATE_FLAGS.includes(name)) {
      throw new UsageError(
        `Unknown argument "${args[i]}". Usage: marketlens keys create [--name N] [--rate 600/min] [--daily N] [--monthly N]`,
      );
    }
    const value = args[i + 1];
    if (value === undefined || value === '') throw new UsageError(`--${name} needs a value`);
    out[name] = value;
  }
  return out;
}

/** `--daily 5` → 5; `--daily abc`, `--daily -5`, `--daily 1.5` → a usage error naming the flag. */
function wholeNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value))
    throw new UsageError(`--${flag} must be a whole number of requests (0 or more), got "${value}"`);
  return Number(value);
}

async function keys(config: Config, words: string[]): Promise<number> {
  const { args, format } = takeFormat(words);
  const [sub, ...rest] = args;
  if (sub === 'create') {
    // Validate everything before touching the database: a bad flag stores nothing.
    const f = createFlags(rest);
    const limits = {
      ...(f.rate !== undefined ? { rate_limit: f.rate } : {}),
      ...(f.daily !== undefined ? { daily_quota: wholeNumber('daily', f.daily) } : {}),
      ...(f.monthly !== undefined ? { monthly_quota: wholeNumber('monthly', f.monthly) } : {}),
    };
    if (f.rate !== undefined && !rateSpec.safeParse(f.rate).success) {
      throw new UsageError(`--rate must look like 600/min, 10/s, 1000/h, 5000/day or 0 (unlimited), got "${f.rate}"`);
    }
    const { key, record } = await withStore(config, async (store) =>
      (await openKeys(store, config, quietLog, false)).create(f.name ?? 'default', limits),
    );
    printRecord({ id: record.id, name: record.name, key }, format);
    console.error('Store this key now: only its hash is kept.');
    return 0;
  }
  if (sub === 'list') {
    const rows = await withStore(config, async (store) => {
      const listed = (await openKeys(store, config, quietLog, false)).list();
      // Requests counted this UTC day and month: the durable counts the servers write to the database.
      const usage = await readUsageCounts(
        store.db,
        listed.map((k) => k.id),
      );
      return listed.map((k) => ({
        id: k.id,
        name: k.name,
        prefix: `${k.prefix}…`,
        source: k.source,
        status: k.revoked_at ? 'revoked' : 'active',
        created_at: k.created_at || null,
        revoked_at: k.revoked_at ?? null,
        rate_limit: k.rate_limit ?? null,
        daily_quota: k.daily_quota ?? null,
        monthly_quota: k.monthly_quota ?? null,
        used_today: usage.get(k.id)?.used_today ?? 0,
        used_this_month: usage.get(k.id)?.used_this_month ?? 0,
      }));
    });
    printRows(rows, format);
    return 0;
  }
  if (sub === 'revoke' && rest[0]) {
    const k = await withStore(config, async (store) =>
      (await openKeys(store, config, quietLog, false)).revoke(rest[0]!),
    );
    if (!k) {
      console.error(`No single stored key matches "${rest[0]}" (use an id or prefix from \`marketlens keys list\`).`);
      return 1;
    }
    printRecord({ id: k.id, revoked_at: k.revoked_at }, format);
    return 0;
  }
  console.error('Usage: marketlens keys create|list|revoke <id|prefix> [--json|--table]');
  return 2;
}

async function db(config: Config, words: string[]): Promise<number> {
  const { args, format } = takeFormat(words);
  const [sub, file] = args;
  if (sub === 'migrate') {
    const store = await openStore(config, quietLog, { migrate: false, poolSize: CLI_POOL });
    try {
      const applied = await migrateToLatest(store.db, store.where);
      printRecord({ engine: store.engine, database: store.where, applied }, format);
      return 0;
    } finally {
      await store.close();
    }
  }
  if (sub === 'status') {
    const store = await openStore(config, quietLog, { migrate: false, poolSize: CLI_POOL });
    try {
      const migrations = (await migrationStatus(store.db)).map((m) => ({
        name: m.name,
        applied_at: m.executedAt?.toISOString() ?? null,
      }));
      if (format === 'json') printRecord({ engine: store.engine, database: store.where, migrations }, format);
      else {
        printRecord({ engine: store.engine, database: store.where }, format);
        printRows(migrations, format);
      }
      return 0;
    } finally {
      await store.close();
    }
  }
  if (sub === 'backup') {
    if (!file) throw new UsageError('Usage: marketlens db backup FILE');
    return withStore(config, async (store) => {
      if (!store.sqlite) {
        console.error(
          'This database is PostgreSQL: back it up with pg_dump (see docs/database.md, "Backup and restore").',
        );
        return 1;
      }
      const target = resolvePath(file);
      mkdirSync(dirname(target), { recursive: true });
      // better-sqlite3's online backup: a consistent copy while servers keep reading and writing.
      await store.sqlite.backup(target);
      printRecord({ database: store.where, backup: target }, format);
      return 0;
    });
  }
  console.error('Usage: marketlens db migrate|status|backup FILE');
  return 2;
}

/** The operation registry loads every marketplace's parsers: only the commands that run one pay for it. */
async function requireOperation(name: string | undefined): Promise<Operation> {
  const { getOperation } = await import('./operations/registry.js');
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
    const msg = parsed.error.issues.map(
      (i) => `${i.path.join('.') || (i as { keys?: string[] }).keys?.join(', ')}: ${i.message}`,
    );
    throw new UsageError(`Invalid parameters for ${op.name}: ${msg.join('; ')}`);
  }
  return parsed.data;
}

async function lookup(config: Config, args: string[]): Promise<number> {
  const op = await requireOperation(args[0]);
  const params = operationParams(op, args.slice(1));
  const { withCommandCore } = await import('./core/command-core.js');
  // Through the service's core: live (max_age=0), and recorded in the price history as any live lookup is.
  return withCommandCore(config, async (core) => {
    const result = await core.lookup.run(op, params, {
      signal: AbortSignal.timeout(config.deadlineMs),
      maxAgeSeconds: 0,
    });
    console.log(JSON.stringify(JSON.parse(result.body.toString()), null, 2));
    if (result.missingParts.length > 0) console.error(`Missing parts: ${result.missingParts.join(', ')}`);
    return 0;
  });
}

async function parse(_config: Config, args: string[]): Promise<number> {
  const op = await requireOperation(args[0]);
  const files = args.slice(1).filter((a) => !/^[a-z_]+=/.test(a));
  const params = operationParams(
    op,
    args.slice(1).filter((a) => /^[a-z_]+=/.test(a)),
    true, // parsing saved files needs no upstream identifiers
  );
  if (files.length === 0) throw new UsageError(`Usage: marketlens parse ${op.name} FILE… [key=value…]`);
  const saved = files.map((path) => ({ path, text: readFileSync(path, 'utf8') }));
  const bodies = op.bodiesFromFiles(saved, params);
  const { parseChecked } = await import('./operations/lookup.js');
  const { record, missing } = parseChecked(op, bodies, params);
  console.log(JSON.stringify(record, null, 2));
  if (missing.length > 0) console.error(`Missing parts: ${missing.join(', ')}`);
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
  const op = await requireOperation(words[0]);
  const params = operationParams(op, words.slice(1));
  const { HarRecorder } = await import('./upstream/har.js');
  const { createHttpClient } = await import('./upstream/create-client.js');
  const { LookupService } = await import('./operations/lookup.js');
  const recorder = new HarRecorder(out ? dirname(resolvePath(out)) : (config.recordDir ?? '.'));
  const http = createHttpClient(config, undefined, { recorder });
  try {
    const result = await new LookupService(config, http).run(op, params, {
      signal: AbortSignal.timeout(config.deadlineMs),
    });
    console.log(JSON.stringify(JSON.parse(result.body.toString()), null, 2));
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

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (e: unknown) => {
    if (
      e instanceof ConfigError ||
      e instanceof StartupError ||
      e instanceof UsageError ||
      e instanceof StoreError ||
      e instanceof InvalidKeyOptions
    )
      console.error(e.message);
    else if (e instanceof MarketlensError) console.error(`${e.code}: ${e.message}`);
    else console.error(e);
    process.exitCode = e instanceof UsageError || e instanceof InvalidKeyOptions ? 2 : 1;
    if (clusterWorker) process.exit();
  },
);
