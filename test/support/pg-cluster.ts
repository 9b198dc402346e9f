/**
 * A throwaway PostgreSQL cluster of the test's own (initdb + pg_ctl on a free loopback port, data under a temp dir),
 * so a test can restart or stop it — never the machine's shared server. initdb and pg_ctl refuse to run as root:
 * as root they run as the `postgres` user (runuser), which owns the temp dir.
 * Outside CI missing binaries skip with a visible notice; when CI is set they are a failure.
 *
 * @example const pg = await startPgCluster(); … await pg.restart(); await pg.stop(); await pg.start(); await pg.destroy();
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { closedPort } from './ports.js';

const run = promisify(execFile);

/** The newest installed PostgreSQL's bin directory (Debian layout), or undefined. */
function findBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  for (const v of versions) {
    const bin = join(root, v, 'bin');
    if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'pg_ctl'))) return bin;
  }
  return undefined;
}

const BIN = findBinDir();
const AS_ROOT = process.getuid?.() === 0;

/** Whether a cluster can be started here; throws under CI when it cannot. */
export function pgClusterAvailable(env: Record<string, string | undefined> = process.env): boolean {
  if (BIN) return true;
  if (env.CI) throw new Error('CI is set but no PostgreSQL server binaries (initdb, pg_ctl) are installed');
  console.warn(
    '\n[marketlens] NOTICE: no PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb) — the tests that restart their own PostgreSQL are skipped (they fail when CI is set).\n',
  );
  return false;
}

export interface PgCluster {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  port: number;
  /** `pg_ctl restart -m fast`: every connection is terminated, the server is back when it resolves. */
  restart(): Promise<void>;
  /** `pg_ctl stop -m fast`: connections are refused until start(). */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** A new empty database in the cluster; its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server (if running) and deletes its files. */
  destroy(): Promise<void>;
}

export async function startPgCluster(): Promise<PgCluster> {
  if (!BIN) throw new Error('no PostgreSQL server binaries');
  const dir = mkdtempSync(join(tmpdir(), 'marketlens-pg-'));
  if (AS_ROOT) chownSync(dir, ...(await postgresIds()));
  const data = join(dir, 'data');
  const port = await closedPort();
  const tool = (name: string, args: string[]) =>
    AS_ROOT
      ? run('runuser', ['-u', 'postgres', '--', join(BIN, name), ...args], { cwd: dir })
      : run(join(BIN, name), args, { cwd: dir });
  // No fsync: the test's durability question is the service's, not the disk's.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=40`;
  const ctl = (action: string, ...extra: string[]) =>
    tool('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-t', '30', ...extra, action, '-o', options]);
  await tool('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync']);
  await ctl('start');
  let running = true;
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    restart: async () => void (await ctl('restart', '-m', 'fast')),
    stop: async () => {
      await ctl('stop', '-m', 'fast');
      running = false;
    },
    start: async () => {
      await ctl('start');
      running = true;
    },
    createDatabase: async (name) => {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        await admin.query(`create database ${name}`);
      } finally {
        await admin.end();
      }
      return url.replace(/\/postgres$/, `/${name}`);
    },
    destroy: async () => {
      if (running) await ctl('stop', '-m', 'immediate').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresIds(): Promise<[number, number]> {
  const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return [Number(uid.stdout.trim()), Number(gid.stdout.trim())];
}
