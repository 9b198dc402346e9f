/**
 * Graceful shutdown of the real binary (issue 10): `marketlens serve` gets SIGTERM while lookups wait on a slow
 * upstream → /readyz answers 503 during the shutdown delay (then the connection is refused once the listener closes),
 * every in-flight lookup still completes with its 200 record, new connections are refused, and the process exits 0
 * promptly, also when the clients use keep-alive connections.
 *
 * The fake upstream holds its answers until the test releases them, instead of answering after a fixed delay: a
 * lookup is in flight for exactly as long as the test needs (across the whole drain), however slowly a busy machine
 * runs the steps in between, and no test waits for a delay to run out.
 */
import { Agent } from 'node:http';
import { connect, type Socket } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pricesRecordSchema } from '../src/marketplaces/resale-b/schema.js';
import { TEST_KEY } from './support/app.js';
import { FakeUpstream } from './support/fake-upstream.js';
import { BUY_BAR, PRICES, buyBarFor } from './support/slow-goat.js';
import { startServe, type Served } from './support/binary.js';
import { get } from './support/http-get.js';

/**
 * The drain tests' shutdown delay: /readyz must be seen at 503 within it, by probes sent from the moment of the
 * signal; a second leaves a starved process or test runner ample time for one probe.
 */
const SHUTDOWN_DELAY_MS = 1_000;
const IN_FLIGHT = 6;

/** /readyz as a load balancer sees it: the status, or the network error code once nothing listens. */
async function readiness(port: number): Promise<number | string> {
  try {
    return (await get(port, '/readyz')).status;
  } catch (e) {
    return String((e as NodeJS.ErrnoException).code ?? (e as Error).message);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `promise`, or a failure naming `what` (with the server's output) once `ms` pass first. */
async function within<T>(ms: number, what: string, server: Served, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms:\n${server.out()}`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves once the server has printed something matching `pattern` (on its output, not by polling). */
function printed(server: Served, pattern: RegExp): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (!pattern.test(server.out())) return false;
      server.child.stdout!.off('data', check);
      server.child.stderr!.off('data', check);
      resolve();
      return true;
    };
    if (check()) return;
    server.child.stdout!.on('data', check);
    server.child.stderr!.on('data', check);
  });
}

/** A fake GOAT whose buy_bar_data answers wait until `release()`. */
interface HeldGoat {
  upstream: FakeUpstream;
  /** Resolves once `n` requests wait on the release. */
  holding(n: number): Promise<void>;
  release(): void;
  stop(): Promise<void>;
}

async function startHeldGoat(): Promise<HeldGoat> {
  const upstream = await new FakeUpstream().start();
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let held = 0;
  const waiting: Array<{ n: number; resolve: () => void }> = [];
  upstream.on(BUY_BAR, async (req, res) => {
    held++;
    for (const w of waiting) if (held >= w.n) w.resolve();
    await released;
    const id = req.query.get('productTemplateId') ?? '0';
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(buyBarFor(id)));
  });
  return {
    upstream,
    holding: (n) => (held >= n ? Promise.resolve() : new Promise((resolve) => waiting.push({ n, resolve }))),
    release,
    stop: async () => {
      release();
      await upstream.stop();
    },
  };
}

interface Setup {
  port: number;
  server: Served;
  goat: HeldGoat;
}

const servers: Served[] = [];
const goats: HeldGoat[] = [];

/**
 * Starts the binary on a port the system picks (MARKETLENS_PORT=0, read back from its "listening" line: servers that
 * start together cannot be handed the same port), with its own held upstream.
 */
async function serve(env: Record<string, string>): Promise<Setup> {
  const goat = await startHeldGoat();
  goats.push(goat);
  const server = await startServe({
    MARKETLENS_HOST: '127.0.0.1',
    MARKETLENS_PORT: '0',
    MARKETLENS_DATA_DIR: mkdtempSync(join(tmpdir(), 'marketlens-shutdown-')),
    MARKETLENS_API_KEYS: TEST_KEY,
    MARKETLENS_RATE_LIMIT: '0',
    MARKETLENS_BROWSER_PATH: 'none',
    MARKETLENS_RESALE_B_ORIGIN: goat.upstream.origin,
    ...env,
  });
  servers.push(server);
  const port = Number(/Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(server.out())?.[1]);
  if (!(port > 0)) throw new Error(`no listening port:\n${server.out()}`);
  return { port, server, goat };
}

type Test = 'fresh' | 'keepAlive' | 'silent' | 'partial' | 'partialWithLookup' | 'overLong';
/**
 * Every test ends its own server, so each has one; they all start in the beforeAll below, together: their start-up
 * CPU is spent in parallel, and never beside a test's drain.
 */
const setups = {} as Record<Test, Setup>;

/** The hostile-client tests' shutdown delay; their connection timeouts outlast the test. */
const DRAIN_DELAY_MS = 300;
const hostileEnv = (env: Record<string, string>) => ({
  MARKETLENS_SHUTDOWN_DELAY_MS: String(DRAIN_DELAY_MS),
  // Far longer than the test: only the shutdown itself may close these connections.
  MARKETLENS_IDLE_TIMEOUT_MS: '120000',
  MARKETLENS_REQUEST_TIMEOUT_MS: '120000',
  ...env,
});
/** The grace of the over-long request's test: its exit comes at the drain delay plus this. */
const GRACE_MS = 500;

beforeAll(async () => {
  const drainEnv = {
    MARKETLENS_LOG_LEVEL: 'info',
    MARKETLENS_DEADLINE_MS: '10000',
    MARKETLENS_SHUTDOWN_DELAY_MS: String(SHUTDOWN_DELAY_MS),
  };
  // The held lookups must outlast the drain delay: deadlines far beyond the test.
  const longLookups = { MARKETLENS_DEADLINE_MS: '30000', MARKETLENS_ATTEMPT_TIMEOUT_MS: '30000' };
  const starts: Record<Test, Promise<Setup>> = {
    fresh: serve(drainEnv),
    keepAlive: serve(drainEnv),
    silent: serve(hostileEnv({ MARKETLENS_SHUTDOWN_TIMEOUT_MS: '20000' })),
    partial: serve(hostileEnv({ MARKETLENS_SHUTDOWN_TIMEOUT_MS: '20000' })),
    partialWithLookup: serve(hostileEnv({ MARKETLENS_SHUTDOWN_TIMEOUT_MS: '20000', ...longLookups })),
    overLong: serve(hostileEnv({ MARKETLENS_SHUTDOWN_TIMEOUT_MS: String(GRACE_MS), ...longLookups })),
  };
  // Every start settles before a failed one fails the file: afterAll then ends all that did start.
  await Promise.allSettled(Object.values(starts));
  for (const [test, start] of Object.entries(starts)) setups[test as Test] = await start;
}, 90_000);

afterAll(async () => {
  // Only if a test failed half-way: never leave a child behind.
  for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
  await Promise.all(goats.map((g) => g.stop()));
});

describe('graceful shutdown of marketlens serve', () => {
  let nextId = 7100;

  /**
   * Puts IN_FLIGHT lookups in flight (each on a fresh connection, or all through one keep-alive agent as a load
   * balancer or SDK sends them), sends SIGTERM, and checks the drain and the exit.
   */
  async function drain({ port, server, goat }: Setup, connections: 'fresh' | 'keep-alive'): Promise<void> {
    expect(await readiness(port)).toBe(200);

    const agent = connections === 'keep-alive' ? new Agent({ keepAlive: true, maxSockets: IN_FLIGHT }) : false;
    let settled = 0;
    // Distinct product ids: each lookup is its own upstream fetch (no cache hit, no shared flight).
    const lookups = Array.from({ length: IN_FLIGHT }, () =>
      get(port, `${PRICES}?query=${nextId++}&country=US`, { 'x-api-key': TEST_KEY }, agent).finally(() => settled++),
    );
    // Seen by the checks below even if one fails first (the server is killed then, and they reject).
    for (const l of lookups) l.catch(() => undefined);
    await within(10_000, `${IN_FLIGHT} lookups reaching the upstream`, server, goat.holding(IN_FLIGHT));

    const saidIt = printed(server, /shutting down/);
    let said = false;
    void saidIt.then(() => (said = true));
    expect(server.child.kill('SIGTERM')).toBe(true);

    // During the drain a load balancer must not see "ready": 503 while the listener stays open for the shutdown
    // delay, then no listener at all. Probes start with the signal, which is delivered asynchronously: one sent
    // before the process handled it may still see 200, none sent after it said it was shutting down.
    const probes: Array<{ result: number | string; afterLine: boolean }> = [];
    const giveUpAt = Date.now() + 15_000;
    for (;;) {
      const afterLine = said;
      const result = await readiness(port);
      probes.push({ result, afterLine });
      if (result === 'ECONNREFUSED') break;
      if (Date.now() > giveUpAt)
        throw new Error(`the listener did not close: ${JSON.stringify(probes)}:\n${server.out()}`);
      await sleep(10);
    }
    await within(5_000, 'the shutdown log line after SIGTERM', server, saidIt);
    const results = probes.map((p) => p.result);
    const notReady = results.findIndex((r) => r !== 200);
    expect(results[notReady], JSON.stringify(probes)).toBe(503);
    for (const p of probes.slice(notReady)) expect([503, 'ECONNREFUSED', 'ECONNRESET']).toContain(p.result);
    for (const p of probes) if (p.afterLine) expect(p.result).not.toBe(200);
    // The lookups really were in flight when the listener closed: their upstream has not answered yet.
    expect(settled).toBe(0);

    goat.release();
    const answers = await Promise.all(lookups);
    for (const a of answers) {
      expect(a.status, a.body).toBe(200);
      expect(pricesRecordSchema.safeParse(JSON.parse(a.body)).success).toBe(true);
    }

    // Promptly: an answered connection must not keep the process alive until its idle timeout (Fastify: 72 s,
    // longer than an orchestrator's usual grace period, after which it is SIGKILLed instead of exiting 0).
    const code = await Promise.race([
      server.exited,
      sleep(10_000).then(() => 'still running 10 s after the last answer'),
    ]);
    if (agent) agent.destroy();
    expect(code, server.out()).toBe(0);
    // Nothing listens any more.
    expect(await readiness(port)).toBe('ECONNREFUSED');
  }

  it(
    'SIGTERM during in-flight lookups: readyz goes false, every lookup completes with 200, exit 0',
    { timeout: 60_000 },
    () => drain(setups.fresh, 'fresh'),
  );

  it('the same with keep-alive clients: answered connections do not hold the exit up', { timeout: 60_000 }, () =>
    drain(setups.keepAlive, 'keep-alive'),
  );
});

/**
 * Hostile clients at shutdown (issue 20, item 2): a connection that sent nothing, or half a request line, must not
 * hold the exit up; and an in-flight request longer than MARKETLENS_SHUTDOWN_TIMEOUT_MS is cut at the grace period.
 */
describe('shutdown with silent, half-open and over-long connections', () => {
  function rawSocket(port: number, first?: string): Promise<Socket> {
    return new Promise((resolveSocket) => {
      const s = connect(port, '127.0.0.1', () => {
        if (first) s.write(first);
        resolveSocket(s);
      });
      s.on('error', () => undefined);
    });
  }

  /** When `socket` closes (ms since the epoch), or undefined once `withinMs` passes without it closing. */
  function closedAt(socket: Socket, withinMs: number): Promise<number | undefined> {
    return new Promise((resolve) => {
      if (socket.closed) return resolve(Date.now());
      const timer = setTimeout(() => resolve(undefined), withinMs);
      socket.once('close', () => {
        clearTimeout(timer);
        resolve(Date.now());
      });
    });
  }

  /**
   * The margin over the drain delay covers the 100 ms sweep and closing the app on a loaded machine (measured: exit
   * 348 ms after SIGTERM; before, the request timeout or the 20 s grace).
   */
  const MARGIN_MS = 2_500;

  it(
    'exits 0 promptly after SIGTERM although one connection sent nothing and one half a request line',
    { timeout: 30_000 },
    async () => {
      const { port, server } = setups.silent;
      const silent = await rawSocket(port);
      const half = await rawSocket(port, 'GET /hea');
      // Both connected before this request: by its answer the server has accepted them and read the half line
      // (loopback data is readable at once, and the answer takes several turns of the server's event loop).
      expect((await get(port, '/healthz')).status).toBe(200);
      const closed = [closedAt(silent, 10_000), closedAt(half, 10_000)];
      const signalledAt = Date.now();
      server.child.kill('SIGTERM');
      const code = await Promise.race([server.exited, sleep(8_000).then(() => 'still running 8 s after SIGTERM')]);
      // 0, not 1: the connections closed by themselves, not when the 20 s grace ran out.
      expect(code, server.out()).toBe(0);
      expect(Date.now() - signalledAt).toBeLessThan(DRAIN_DELAY_MS + MARGIN_MS);
      for (const at of await Promise.all(closed)) expect(at).toBeDefined();
    },
  );

  /**
   * Issue 27, item 9: a request whose headers arrived but whose body never completes (Content-Length: 1000, one byte
   * sent) has no lookup in flight; it held the exit until the request timeout (33.5 s).
   */
  const PARTIAL_BODY =
    `POST /api/v1/webhooks HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${TEST_KEY}\r\n` +
    'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{';

  it(
    'a request whose body never completes does not hold the exit: exit 0 within the drain delay and a margin',
    { timeout: 30_000 },
    async () => {
      const { port, server } = setups.partial;
      const partial = await rawSocket(port, PARTIAL_BODY);
      // The headers went out before this request: by its answer the server has read them (loopback data is readable
      // at once, and the answer takes several turns of the server's event loop).
      expect((await get(port, '/healthz')).status).toBe(200);
      const closed = closedAt(partial, 10_000);
      const signalledAt = Date.now();
      server.child.kill('SIGTERM');
      const code = await Promise.race([server.exited, sleep(10_000).then(() => 'still running 10 s after SIGTERM')]);
      const took = Date.now() - signalledAt;
      expect(code, server.out()).toBe(0);
      expect(took, server.out()).toBeLessThan(DRAIN_DELAY_MS + MARGIN_MS);
      expect(await closed).toBeDefined();
    },
  );

  it(
    'the unfinished body is cut after the drain delay while a lookup in flight on another connection answers 200',
    { timeout: 30_000 },
    async () => {
      const { port, server, goat } = setups.partialWithLookup;
      const partial = await rawSocket(port, PARTIAL_BODY);
      let settled = false;
      const lookup = get(port, `${PRICES}?query=9902&country=US`, { 'x-api-key': TEST_KEY }).finally(
        () => (settled = true),
      );
      lookup.catch(() => undefined);
      // A HEAD lookup does not wait for a body it never reads: its lookup is in flight although its body is not
      // complete either, so it must be answered, not cut.
      const headLookup = await rawSocket(
        port,
        `HEAD ${PRICES}?query=9903&country=US HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${TEST_KEY}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
      );
      let headAnswer = '';
      headLookup.on('data', (chunk: Buffer) => (headAnswer += chunk.toString('latin1')));
      const headClosed = closedAt(headLookup, 20_000);
      await within(10_000, 'both lookups reaching the upstream', server, goat.holding(2));
      const closed = closedAt(partial, 10_000);
      const signalledAt = Date.now();
      server.child.kill('SIGTERM');
      const cutAt = await closed;
      expect(cutAt, `the partial request was not cut:\n${server.out()}`).toBeDefined();
      expect(cutAt! - signalledAt).toBeLessThan(DRAIN_DELAY_MS + MARGIN_MS);
      // The lookups were still in flight when the partial request was cut: their upstream answers only now.
      expect(settled).toBe(false);
      expect(headAnswer).toBe('');
      goat.release();
      const answer = await lookup;
      const answeredAt = Date.now();
      expect(answer.status, answer.body).toBe(200);
      expect(answeredAt).toBeGreaterThan(cutAt!);
      expect(await headClosed).toBeDefined();
      expect(headAnswer).toMatch(/^HTTP\/1\.1 200 /);
      const code = await Promise.race([server.exited, sleep(10_000).then(() => 'still running 10 s after the answer')]);
      expect(code, server.out()).toBe(0);
    },
  );

  it(
    'cuts an in-flight request longer than MARKETLENS_SHUTDOWN_TIMEOUT_MS and exits',
    { timeout: 30_000 },
    async () => {
      // Its upstream never answers (until the test's end): only the grace can end this request.
      const { port, server, goat } = setups.overLong;
      const lookup = get(port, `${PRICES}?query=9901&country=US`, { 'x-api-key': TEST_KEY }).catch((e: Error) => e);
      await within(10_000, 'the lookup reaching the upstream', server, goat.holding(1));
      const signalledAt = Date.now();
      server.child.kill('SIGTERM');
      const code = await Promise.race([server.exited, sleep(10_000).then(() => 'still running 10 s after SIGTERM')]);
      // 1: the grace period ran out and the remaining connections were cut.
      expect(code, server.out()).toBe(1);
      const took = Date.now() - signalledAt;
      // The drain delay plus the grace: not sooner (100 ms for timers measured on a clock read a little earlier),
      // and not much later, with slack for a loaded machine.
      expect(took, `exit ${String(code)} after ${took} ms:\n${server.out()}`).toBeGreaterThanOrEqual(
        DRAIN_DELAY_MS + GRACE_MS - 100,
      );
      expect(took).toBeLessThan(DRAIN_DELAY_MS + GRACE_MS + 3_500);
      expect(await lookup).toBeInstanceOf(Error);
      expect(server.out()).toMatch(/shutdown grace over/);
    },
  );
});
