/**
 * MARKETLENS_WORKERS (issue 21), on the real binary: with 2, a cluster primary and two workers share the port —
 * requests reach both (told apart by the `pid` of their request log lines), usage counts stay exact across them, a
 * worker killed with -9 is replaced while the other keeps answering, and SIGTERM drains every worker and ends them
 * all. With 1, the service is the single process it always was.
 */
import { connect, createServer } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it as base } from 'vitest';
import { monthWindow } from '../src/limits/calendar.js';
import { openStore, type Engine } from '../src/store/index.js';
import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from './support/stores.js';
import { TEST_KEY } from './support/app.js';
import { runCli, startServe, type Ran, type Served } from './support/binary.js';
import { get } from './support/http-get.js';
import { BUY_BAR, PRICES, buyBarFor, startSlowGoat, type SlowGoat } from './support/slow-goat.js';

type LogLine = Record<string, unknown> & { msg?: string; pid?: number };

/** The JSON log lines printed so far (the first-key banner and other text are skipped). */
function logLines(server: Served): LogLine[] {
  return server
    .out()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, server: Served, ok: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${server.out()}`);
    await sleep(25);
  }
}

/** Pids of the processes that completed a request for `url` (their access lines). */
function answeringPids(server: Served, url: string): Set<number> {
  return new Set(
    logLines(server)
      .filter((l) => l.msg === 'request completed' && l.url === url)
      .map((l) => l.pid!),
  );
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The port from the "listening" line of a server started on MARKETLENS_PORT=0 (every worker shares that one). */
function listeningPort(server: Served): number {
  const port = Number(/Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(server.out())?.[1]);
  if (!(port > 0)) throw new Error(`no listening port:\n${server.out()}`);
  return port;
}

/** Requests counted in the database for this month (every key): what the workers have written. */
async function writtenThisMonth(db: TestDatabase): Promise<number> {
  const store = await openStore(db.config, undefined, { migrate: false, poolSize: 1 });
  try {
    const row = await store.db
      .selectFrom('usage_counts')
      .select((eb) => eb.fn.sum<number | string>('count').as('n'))
      .where('period', '=', monthWindow(Date.now()).id)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  } finally {
    await store.close();
  }
}

/** Pids of the workers that said they listen, in order. */
function workerPidsOf(server: Served): number[] {
  return logLines(server)
    .filter((l) => l.msg === 'worker listening')
    .map((l) => l.workerPid as number);
}

/**
 * Whether a connection to `port` is refused (nothing listens). Only a TCP connect: the primary accepts connections
 * and hands them on, and one handed to a worker that is closing may never be answered.
 */
function connectionRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED'));
  });
}

function baseEnv(port: number, extra: Record<string, string>): Record<string, string> {
  return {
    MARKETLENS_HOST: '127.0.0.1',
    MARKETLENS_PORT: String(port),
    MARKETLENS_DATA_DIR: mkdtempSync(join(tmpdir(), 'marketlens-workers-')),
    MARKETLENS_API_KEYS: TEST_KEY,
    MARKETLENS_RATE_LIMIT: '0',
    // debug: each request's "incoming request" line too, to see which worker holds a lookup still in flight.
    MARKETLENS_LOG_LEVEL: 'debug',
    MARKETLENS_BROWSER_PATH: 'none',
    MARKETLENS_DEADLINE_MS: '10000',
    MARKETLENS_SHUTDOWN_DELAY_MS: '300',
    ...extra,
  };
}

interface Cluster {
  db: TestDatabase;
  goat: SlowGoat;
  server: Served;
  port: number;
}

/**
 * A primary with two workers on `engine`, on a port the system picks (MARKETLENS_PORT=0: servers that start together
 * cannot be handed the same port, as a port found free and released could be).
 */
async function startCluster(engine: Engine): Promise<Cluster> {
  const db = await createTestDatabase(engine);
  const goat = await startSlowGoat(0);
  try {
    const server = await startServe(
      baseEnv(0, {
        ...db.env,
        MARKETLENS_WORKERS: '2',
        MARKETLENS_RESALE_B_ORIGIN: goat.upstream.origin,
        // The SIGTERM test holds lookups at the upstream across the drain: no deadline may end them first.
        MARKETLENS_DEADLINE_MS: '30000',
        MARKETLENS_ATTEMPT_TIMEOUT_MS: '30000',
      }),
    );
    try {
      await until('both workers', server, () => /all workers listening/.test(server.out()));
    } catch (e) {
      server.child.kill('SIGKILL');
      throw e;
    }
    return { db, goat, server, port: listeningPort(server) };
  } catch (e) {
    await goat.stop();
    await db.drop();
    throw e;
  }
}

/** The primary of `MARKETLENS_WORKERS=2` on a port in use, run to its end. */
async function runOnPortInUse(): Promise<Ran> {
  const taken = createServer();
  await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
  const port = (taken.address() as { port: number }).port;
  try {
    return await runCli(['serve'], baseEnv(port, { MARKETLENS_WORKERS: '2' }));
  } finally {
    taken.close();
  }
}

/**
 * What every describe below starts (a cluster per engine, the port-in-use run, the single process) starts here, all
 * at once: their start-up CPU is spent in parallel, before the first test, instead of one after another between
 * tests. Each describe awaits its own (a failure is reported there; the no-op catch only keeps it from counting as
 * unhandled until then).
 */
const starting: {
  clusters: Partial<Record<Engine, Promise<Cluster>>>;
  portInUse?: Promise<Ran>;
  single?: Promise<Served>;
} = { clusters: {} };

beforeAll(() => {
  for (const engine of ENGINES) if (engineAvailable(engine)) starting.clusters[engine] = startCluster(engine);
  const portInUse = (starting.portInUse = runOnPortInUse());
  const single = (starting.single = startServe(baseEnv(0, { MARKETLENS_WORKERS: '1' })));
  for (const p of [...Object.values(starting.clusters), portInUse, single]) p.catch(() => undefined);
});

afterAll(async () => {
  // Whatever a test did not end (it failed half-way, or was not run): never leave a child behind.
  const ended = (s: Served) => s.child.exitCode !== null || s.child.signalCode !== null;
  for (const started of await Promise.allSettled(Object.values(starting.clusters))) {
    if (started.status === 'rejected') continue;
    const { server, goat, db } = started.value;
    if (!ended(server)) server.child.kill('SIGKILL');
    for (const pid of workerPidsOf(server)) if (alive(pid)) process.kill(pid, 'SIGKILL');
    await goat.stop();
    await db.drop();
  }
  const single = await starting.single?.catch(() => undefined);
  if (single && !ended(single)) single.child.kill('SIGKILL');
  await starting.portInUse?.catch(() => undefined);
}, 60_000);

describe.each(ENGINES)('MARKETLENS_WORKERS=2 on %s: two workers behind one port', (engine) => {
  const it = base.skipIf(!engineAvailable(engine));
  let db: TestDatabase;
  let goat: SlowGoat;
  let server: Served;
  let port: number;
  const workerPids = () => workerPidsOf(server);
  let lookupsSent = 0;
  let nextId = 8100;

  beforeAll(async () => {
    if (!engineAvailable(engine)) return;
    ({ db, goat, server, port } = await starting.clusters[engine]!);
  }, 90_000);
  it('says at start-up how many workers run and that caches and rate limits are per worker', () => {
    const line = logLines(server).find((l) => l.role === 'primary' && l.workers === 2 && /starting/.test(l.msg!));
    expect(line?.msg, server.out()).toMatch(/caches and rate limits are per worker/);
    expect(line?.msg).toMatch(/MARKETLENS_REDIS_URL/);
    expect(line?.msg).toMatch(/usage counts stay exact/);
    const pids = workerPids();
    expect(new Set(pids).size).toBe(2);
    expect(pids).not.toContain(server.child.pid);
  });

  it('answers from both workers; each worker caches for itself', async () => {
    const url = `${PRICES}?query=${nextId++}&country=US`;
    const answers = await Promise.all(Array.from({ length: 10 }, () => get(port, url, { 'x-api-key': TEST_KEY })));
    lookupsSent += answers.length;
    for (const a of answers) expect(a.status, a.body).toBe(200);
    await until('10 request logs', server, () => answeringPids(server, url).size === 2, 5_000);
    expect([...answeringPids(server, url)].sort()).toEqual([...workerPids()].sort());
    // The same lookup was fetched at most once per worker: caches are per worker without Redis.
    expect(goat.count()).toBeLessThanOrEqual(2);
  });

  it('counts usage exactly across workers: /api/v1/usage from either worker says every request once', async () => {
    const answers = await Promise.all(
      Array.from({ length: 14 }, (_, i) =>
        get(port, `${PRICES}?query=${8200 + (i % 3)}&country=US`, { 'x-api-key': TEST_KEY }),
      ),
    );
    lookupsSent += answers.length;
    for (const a of answers) expect(a.status, a.body).toBe(200);
    // Each worker writes its counts shortly after its last request, and answers with the written counts plus its own
    // unwritten ones: wait until the database holds every request (none is left unwritten in either worker, so
    // either one's answer must now be exact).
    await until('every request written', server, async () => (await writtenThisMonth(db)) >= lookupsSent, 10_000);
    const pidsSeen = new Set<number>();
    for (let i = 0; i < 6; i++) {
      const r = await get(port, '/api/v1/usage', { 'x-api-key': TEST_KEY });
      expect(r.status, r.body).toBe(200);
      const usage = JSON.parse(r.body) as { daily: { used: number }; monthly: { used: number } };
      expect(usage.daily.used).toBe(lookupsSent);
      expect(usage.monthly.used).toBe(lookupsSent);
    }
    // (log lines reach stdout in batches, within 200 ms)
    await until(
      'usage answers logged by both workers',
      server,
      () => answeringPids(server, '/api/v1/usage').size === 2,
      5_000,
    ).catch(() => undefined);
    for (const pid of answeringPids(server, '/api/v1/usage')) pidsSeen.add(pid);
    expect(pidsSeen.size, 'both workers answered /api/v1/usage').toBe(2);
  });

  // Supervising processes does not depend on the database: once is enough.
  if (engine === 'sqlite') {
    it('a worker killed with -9 is replaced; the other keeps answering meanwhile', async () => {
      const [victim, survivor] = workerPids();
      process.kill(victim!, 'SIGKILL');
      await until('the primary to notice', server, () =>
        logLines(server).some((l) => l.msg === 'worker died; starting another' && l.workerPid === victim),
      );
      for (let i = 0; i < 6; i++) expect((await get(port, '/healthz')).status).toBe(200);
      await until('a new worker', server, () => workerPids().length === 3);
      const replacement = workerPids()[2]!;
      expect([victim, survivor]).not.toContain(replacement);
      expect(alive(victim!)).toBe(false);
      // The replacement takes connections too.
      const url = `${PRICES}?query=${nextId++}&country=US`;
      const answers = await Promise.all(Array.from({ length: 8 }, () => get(port, url, { 'x-api-key': TEST_KEY })));
      lookupsSent += answers.length;
      for (const a of answers) expect(a.status, a.body).toBe(200);
      await until('both live workers answering', server, () => answeringPids(server, url).size === 2, 5_000);
      expect([...answeringPids(server, url)].sort()).toEqual([survivor, replacement].sort());
    });

    it('a replacement that dies young again waits twice as long before the next one: a crash loop does not spin', async () => {
      const died = () => logLines(server).filter((l) => l.msg === 'worker died; starting another');
      expect(died().map((l) => l.restartInMs)).toEqual([100]);
      const replacement = workerPids()[2]!;
      process.kill(replacement, 'SIGKILL');
      await until('the primary to notice', server, () => died().length === 2);
      expect(died()[1]!.workerPid).toBe(replacement);
      expect(died()[1]!.restartInMs).toBe(200);
      await until('another worker', server, () => workerPids().length === 4);
      expect((await get(port, '/healthz')).status).toBe(200);
    });
  }

  it(
    'SIGTERM: every in-flight lookup completes, every worker exits, the primary exits 0',
    { timeout: 30_000 },
    async () => {
      // The upstream holds these lookups' answers until the test releases them: in flight for the whole drain,
      // however long the steps before the signal take on a busy machine.
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      goat.upstream.on(BUY_BAR, async (req, res) => {
        await released;
        const id = req.query.get('productTemplateId') ?? '0';
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(buyBarFor(id)));
      });
      const before = goat.count();
      const ids = Array.from({ length: 6 }, () => nextId++);
      let settled = 0;
      const lookups = ids.map((id) =>
        get(port, `${PRICES}?query=${id}&country=US`, { 'x-api-key': TEST_KEY }).finally(() => settled++),
      );
      // Seen by the test's checks below even if one fails first (the server is killed then, and they reject).
      for (const l of lookups) l.catch(() => undefined);
      await until('lookups in flight', server, () => goat.count() - before === 6, 10_000);
      // The log is written in batches (up to 200 ms late): wait for these lookups' own lines.
      const incoming = () =>
        logLines(server).filter(
          (l) => l.msg === 'incoming request' && ids.some((id) => String(l.url).includes(`query=${id}&`)),
        );
      await until('lookups logged', server, () => incoming().length === 6, 5_000);
      const inFlightOn = new Set(incoming().map((l) => l.pid));
      expect(inFlightOn.size, 'lookups in flight on both workers').toBe(2);
      const signalledAt = Date.now();
      server.child.kill('SIGTERM');
      // Each worker keeps serving for its shutdown delay, then closes its listener; the primary closes the port
      // once both have. Until then a new connection is still answered.
      const giveUpAt = Date.now() + 15_000;
      while ((await connectionRefused(port)) === false) {
        if (Date.now() > giveUpAt) throw new Error(`the port was not closed after SIGTERM:\n${server.out()}`);
        await sleep(25);
      }
      // The lookups were still in flight when both workers had stopped listening: their upstream answers only now.
      expect(settled).toBe(0);
      release();
      const answers = await Promise.all(lookups);
      for (const a of answers) expect(a.status, a.body).toBe(200);
      // Not before the workers' shutdown delay (MARKETLENS_SHUTDOWN_DELAY_MS in baseEnv).
      expect(Date.now() - signalledAt).toBeGreaterThanOrEqual(300);
      const code = await Promise.race([server.exited, sleep(15_000).then(() => 'still running')]);
      expect(code, server.out()).toBe(0);
      for (const pid of workerPids()) expect(alive(pid), `worker ${pid} still running`).toBe(false);
      const exits = logLines(server).filter((l) => l.msg === 'worker exited');
      expect(exits.map((l) => l.code)).toEqual([0, 0]);
    },
  );
});

describe('MARKETLENS_WORKERS=2 that cannot start', () => {
  base(
    'a port in use: the workers say why and the primary exits 1 instead of re-forking them forever',
    async () => {
      // Run to its end beside the other start-ups (the file's beforeAll).
      const ran = await starting.portInUse!;
      expect(ran.code, ran.stdout + ran.stderr).toBe(1);
      // One line naming the cause and the setting (src/startup-error.ts), no stack trace.
      expect(ran.stderr).toMatch(/port \d+ is in use on 127\.0\.0\.1: set MARKETLENS_PORT/);
      expect(ran.stderr).not.toMatch(/\n\s+at /);
      expect(ran.stdout).toMatch(/a worker failed to start/);
      expect(ran.stdout).not.toMatch(/worker died; starting another/);
    },
    30_000,
  );
});

describe('MARKETLENS_WORKERS=1 (the default): one process, no cluster', () => {
  base('serves from the process that was started, with no primary', async () => {
    const server = await starting.single!;
    try {
      const port = listeningPort(server);
      for (let i = 0; i < 3; i++) expect((await get(port, '/healthz')).status).toBe(200);
      await until('request logs', server, () => answeringPids(server, '/healthz').size > 0, 5_000);
      expect([...answeringPids(server, '/healthz')]).toEqual([server.child.pid]);
      expect(logLines(server).some((l) => l.role === 'primary')).toBe(false);
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    } finally {
      if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
    }
  });
});
