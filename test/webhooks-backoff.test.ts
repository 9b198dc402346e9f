/**
 * Receivers that time out are backed off (issue 27, item 5): a subscription in a streak of timeouts is sent with a
 * shortened timeout (halved per timeout down to a floor, the whole timeout every 4th send so a slow receiver still
 * gets through), its retries wait longer each time, and an answer ends the streak. The real sender honours the
 * shortened timeout against a receiver that never answers.
 */
import { SILENT_LOGGER } from '../src/platform/logger.js';
import type { Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { AlertEngine } from '../src/alerts/engine.js';
import type { AlertTables } from '../src/alerts/schema.js';
import { createSender, type SendOptions, type SendResult, type Sender } from '../src/alerts/send.js';
import { openTestStore, type TestStore } from './support/stores.js';
import { startHangingReceiver, type HangingReceiver } from './support/webhook-receiver.js';

const silent = SILENT_LOGGER;

const timedOut = (ms: number): SendResult => ({
  ok: false,
  retryable: true,
  status: null,
  latencyMs: null,
  retryAfterSeconds: null,
  error: `no answer within ${ms} ms`,
  timedOut: true,
});
const answered: SendResult = {
  ok: true,
  retryable: false,
  status: 204,
  latencyMs: 1,
  retryAfterSeconds: null,
  error: null,
};

/** A sender that times out `timeouts` sends, then answers; it records each send's timeout and time. */
function recordingSender(timeouts: number) {
  const sends: { at: number; timeoutMs: number | undefined }[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const sender: Sender = {
    send: async (_url: string, _body: string, _headers: Record<string, string>, options: SendOptions = {}) => {
      sends.push({ at: Date.now(), timeoutMs: options.timeoutMs });
      for (const w of waiters.filter((w) => sends.length >= w.n)) w.resolve();
      return sends.length <= timeouts ? timedOut(options.timeoutMs ?? 0) : answered;
    },
    close: () => undefined,
  };
  const sent = (n: number) =>
    new Promise<void>((resolve) => (sends.length >= n ? resolve() : waiters.push({ n, resolve })));
  return { sender, sends, sent };
}

describe('a receiver that keeps timing out', () => {
  let store: TestStore | undefined;
  let engine: AlertEngine | undefined;
  let hanging: HangingReceiver | undefined;
  afterEach(async () => {
    await engine?.close();
    await store?.close();
    await hanging?.stop();
  });

  it('is sent with a shortened timeout and retried later each time; an answer ends the streak', async () => {
    store = await openTestStore('sqlite');
    const base = 40;
    const { sender, sends, sent } = recordingSender(6);
    engine = new AlertEngine({
      db: store.db as unknown as Kysely<AlertTables>,
      policy: { allowHttp: true, allowPrivate: true },
      log: silent,
      sender,
      timing: {
        baseDelayMs: base,
        maxDelayMs: 60_000,
        pollMs: 10,
        sendTimeoutMs: 1_000,
        minSendTimeoutMs: 100,
      },
    });
    engine.start();
    const sub = await engine.subscriptions.create('key-a', {
      url: 'http://127.0.0.1:9/hook',
      events: ['price.changed'],
      filter: {},
      description: null,
    });
    await engine.sendTest(sub);
    await sent(7); // six timeouts, then an answer
    // Whole, halved, quartered, an eighth (above the 100 ms floor), whole again on the 4th of the streak, then the
    // floor (1 000 / 32 is below it).
    expect(sends.map((s) => s.timeoutMs)).toEqual([1_000, 500, 250, 125, 1_000, 100, 100]);
    // Each retry waited at least the backoff's lower bound (3/4 of base × 2^(n-1)): growing delays.
    for (let n = 1; n < sends.length; n++) {
      expect(sends[n]!.at - sends[n - 1]!.at, `gap before send ${n + 1}`).toBeGreaterThanOrEqual(
        Math.floor(0.75 * base * 2 ** (n - 1)),
      );
    }
    // The answer ended the streak: the next delivery is sent with the whole timeout.
    await engine.sendTest(sub);
    await sent(8);
    expect(sends[7]!.timeoutMs).toBe(1_000);
  });

  it('the sender gives up on a receiver that never answers after the shortened timeout', async () => {
    hanging = await startHangingReceiver();
    const sender = createSender({ allowHttp: true, allowPrivate: true }, 10_000);
    try {
      const started = Date.now();
      const result = await sender.send(hanging.url('/hook'), '{}', {}, { timeoutMs: 200 });
      expect(result).toMatchObject({ ok: false, retryable: true, timedOut: true });
      expect(result.error).toMatch(/no answer within 200 ms/);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(hanging.count()).toBe(1);
    } finally {
      sender.close();
    }
  });
});
