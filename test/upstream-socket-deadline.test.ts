/**
 * An upstream that drips its body past the lookup deadline (issue 20, item 8): the lookup answers 504, and the
 * socket to that upstream is closed at the deadline — not left ESTABLISHED with unread data for minutes.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, testApp } from './support/app.js';
import { FakeUpstream } from './support/fake-upstream.js';
import { expectProblem } from './support/problem.js';
import { BUY_BAR, PRICES } from './support/slow-goat.js';

const DEADLINE_MS = 1000;
/**
 * The body is cancelled and impit's response aborted at the deadline. Most runs see the connection closed within
 * milliseconds; in some (about one in four here) impit's native layer releases it only ~14 s later, on its own
 * schedule. Before the fix it stayed open for as long as the upstream dripped (10+ minutes): the bound is what is
 * guaranteed today, and the README says so.
 */
const RELEASE_BOUND_MS = 20_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('upstream sockets at the deadline', () => {
  const goat = new FakeUpstream();
  let app: FastifyInstance;
  /** When the upstream saw each dripping connection close (undefined while it is open). */
  const closedAt: Array<number | undefined> = [];

  beforeAll(async () => {
    await goat.start();
    goat.on(BUY_BAR, (_req, res) => {
      const i = closedAt.push(undefined) - 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
      const t = setInterval(() => res.write(' '), 50);
      res.on('close', () => {
        clearInterval(t);
        closedAt[i] = Date.now();
      });
    });
    app = await testApp({
      MARKETLENS_RESALE_B_ORIGIN: goat.origin,
      MARKETLENS_DEADLINE_MS: String(DEADLINE_MS),
      MARKETLENS_RESALE_B_TIMEOUT_MS: '60000',
    });
  });
  afterAll(async () => {
    await app.close();
    await goat.stop();
  });

  it(
    'a body dripping past the deadline: 504, and the upstream connection is released, not held while it drips',
    { timeout: 40_000 },
    async () => {
      const res = await app.inject({ url: `${PRICES}?query=4201&country=US`, headers: auth });
      const answeredAt = Date.now();
      expectProblem(res, 504, 'upstream_timeout');
      while (closedAt.some((c) => c === undefined) && Date.now() - answeredAt < RELEASE_BOUND_MS) await sleep(50);
      expect(closedAt.length).toBeGreaterThan(0);
      for (const c of closedAt) {
        expect(c, 'the upstream connection is still open').toBeDefined();
        expect(c! - answeredAt).toBeLessThan(RELEASE_BOUND_MS);
      }
    },
  );
});
