/**
 * /api/v1/webhooks over HTTP: ownership (another key gets 404), the secret shown once, validation (400 naming the
 * parameter), the test delivery and its record, and target safety — loopback, IPv6 loopback, metadata, private,
 * a name resolving to 127.0.0.1 and http:// are refused by default, and so are IPv6 forms that carry a refused IPv4
 * (compatible, translated, NAT64, 6to4) while those carrying a public one are accepted; at delivery a name resolving
 * to loopback is refused at connect time and a redirect (to loopback) is never followed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createSender } from '../src/alerts/send.js';
import { TEST_KEY, auth, testApp } from './support/app.js';
import { priceObservation } from './support/observations.js';
import { expectProblem } from './support/problem.js';
import { startReceiver, type Receiver } from './support/webhook-receiver.js';

/** A delivery as GET /api/v1/webhooks/{id}/deliveries lists it, as far as these tests read it. */
interface Delivery {
  status: string;
  attempts: number;
  latency_ms: number | null;
}

const OTHER_KEY = 'ml_other_key_for_webhook_tests_0123456789';
const other = { 'x-api-key': OTHER_KEY };

describe('webhooks API (local targets allowed)', () => {
  let app: FastifyInstance;
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
    app = await testApp(
      {
        MARKETLENS_API_KEYS: `${TEST_KEY},${OTHER_KEY}`,
        MARKETLENS_WEBHOOK_ALLOW_HTTP: 'true',
        MARKETLENS_WEBHOOK_ALLOW_PRIVATE: 'true',
      },
      { alerts: { timing: { baseDelayMs: 40, pollMs: 20 } } },
    );
  });
  afterAll(async () => {
    await app?.close();
    await receiver?.stop();
  });

  it('creates, reads, patches, tests and deletes a subscription owned by the calling key', async () => {
    const created = await app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: auth,
      payload: {
        url: receiver.url,
        events: ['price.changed'],
        filter: { sizes: ['10'], countries: ['us'] },
        description: 'AJ1',
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const sub = created.json();
    expect(sub.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    expect(sub).toMatchObject({
      url: receiver.url,
      events: ['price.changed'],
      filter: { sizes: ['10'], countries: ['US'] },
      enabled: true,
      disabled_reason: null,
    });
    receiver.setSecret(sub.secret);

    const got = await app.inject({ url: `/api/v1/webhooks/${sub.id}`, headers: auth });
    expect(got.statusCode).toBe(200);
    expect(got.json().secret).toBeUndefined(); // shown once
    const listed = await app.inject({ url: '/api/v1/webhooks', headers: auth });
    expect(listed.json<{ data: Array<{ id: string }> }>().data.map((s) => s.id)).toEqual([sub.id]);

    // Another key sees nothing and can change nothing.
    expect((await app.inject({ url: '/api/v1/webhooks', headers: other })).json().data).toEqual([]);
    expectProblem(await app.inject({ url: `/api/v1/webhooks/${sub.id}`, headers: other }), 404, 'route_not_found');
    expectProblem(
      await app.inject({ method: 'DELETE', url: `/api/v1/webhooks/${sub.id}`, headers: other }),
      404,
      'route_not_found',
    );
    expectProblem(
      await app.inject({
        method: 'PATCH',
        url: `/api/v1/webhooks/${sub.id}`,
        headers: other,
        payload: { enabled: false },
      }),
      404,
      'route_not_found',
    );
    expectProblem(
      await app.inject({ method: 'POST', url: `/api/v1/webhooks/${sub.id}/test`, headers: other }),
      404,
      'route_not_found',
    );
    expectProblem(
      await app.inject({ url: `/api/v1/webhooks/${sub.id}/deliveries`, headers: other }),
      404,
      'route_not_found',
    );

    const patched = await app.inject({
      method: 'PATCH',
      url: `/api/v1/webhooks/${sub.id}`,
      headers: auth,
      payload: { events: ['price.changed', 'stock.changed'], description: null },
    });
    expect(patched.json()).toMatchObject({ events: ['price.changed', 'stock.changed'], description: null });

    const tested = await app.inject({ method: 'POST', url: `/api/v1/webhooks/${sub.id}/test`, headers: auth });
    expect(tested.statusCode).toBe(202);
    await receiver.waitFor(1);
    expect(receiver.messages()[0]).toMatchObject({ type: 'webhook.test', data: { subscription_id: sub.id } });
    let deliveries: Delivery[] = [];
    for (let i = 0; i < 50 && deliveries[0]?.status !== 'delivered'; i++) {
      deliveries = (await app.inject({ url: `/api/v1/webhooks/${sub.id}/deliveries`, headers: auth })).json<{
        data: Delivery[];
      }>().data;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(deliveries[0]).toMatchObject({
      event_type: 'webhook.test',
      status: 'delivered',
      attempts: 1,
      response_code: 204,
      id: receiver.received[0]!.id,
    });
    expect(deliveries[0]?.latency_ms).toEqual(expect.any(Number));

    expect((await app.inject({ method: 'DELETE', url: `/api/v1/webhooks/${sub.id}`, headers: auth })).statusCode).toBe(
      204,
    );
    expectProblem(await app.inject({ url: `/api/v1/webhooks/${sub.id}`, headers: auth }), 404, 'route_not_found');
  });

  it('feeds observations from app.alerts to the subscription', async () => {
    const created = (
      await app.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: auth,
        payload: { url: receiver.url, events: ['price.changed'] },
      })
    ).json();
    receiver.setSecret(created.secret);
    const before = receiver.messages().length;
    for (const [n, amount] of [
      [1, 50],
      [2, 60],
    ] as const) {
      app.alerts.handleObservations(priceObservation(n, amount, { size: null, currency: 'EUR', country: 'DE' }));
    }
    await receiver.waitFor(before + 1);
    expect(receiver.messages().at(-1)).toMatchObject({
      type: 'price.changed',
      data: { old: 50, new: 60, currency: 'EUR', size: null, name: null },
    });
  });

  it('400 invalid_parameter naming the parameter for bad input', async () => {
    const bad = async (payload: unknown, param: string) => {
      const body = expectProblem(
        await app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: auth, payload: payload as object }),
        400,
        'invalid_parameter',
      );
      expect(JSON.stringify(body.errors)).toContain(param);
    };
    await bad({ url: receiver.url, events: ['price.exploded'] }, 'events');
    await bad({ url: receiver.url, events: [] }, 'events');
    await bad({ url: 'not a url', events: ['price.changed'] }, 'url');
    await bad({ url: 'ftp://example.com/x', events: ['price.changed'] }, 'url');
    await bad({ url: receiver.url, events: ['price.changed'], filter: { min_change_pct: -1 } }, 'filter');
    await bad({ url: receiver.url, events: ['price.changed'], filter: { colour: 'red' } }, 'colour');
    expectProblem(
      await app.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        payload: { url: receiver.url, events: ['price.changed'] },
      }),
      401,
      'missing_api_key',
    );
  });
});

describe('webhook target safety (defaults: https only, no private addresses)', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await testApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it.each([
    ['https://127.0.0.1/hook', /127\.0\.0\.1/],
    ['https://[::1]/hook', /::1/],
    ['https://169.254.169.254/latest/meta-data', /169\.254\.169\.254/],
    ['https://10.1.2.3/hook', /10\.1\.2\.3/],
    ['https://192.168.1.10/hook', /192\.168/],
    ['https://[::ffff:127.0.0.1]/hook', /::ffff/],
    // Issue 27, item 8: IPv4 loopback embedded in IPv6 (compatible, NAT64 local-use, 6to4, translated).
    ['https://[::127.0.0.1]/hook', /::7f00:1/],
    ['https://[64:ff9b:1::7f00:1]/hook', /64:ff9b:1::7f00:1/],
    ['https://[2002:7f00:1::]/hook', /2002:7f00:1::/],
    ['https://[::ffff:0:7f00:1]/hook', /::ffff:0:7f00:1/],
    ['https://[64:ff9b::a9fe:a9fe]/latest/meta-data', /64:ff9b::a9fe:a9fe/],
    ['https://localhost/hook', /resolves to (127\.0\.0\.1|::1)/],
    ['http://example.com/hook', /https/],
  ])('refuses %s at creation', async (url, why) => {
    const body = expectProblem(
      await app.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: auth,
        payload: { url, events: ['price.changed'] },
      }),
      400,
      'invalid_parameter',
    );
    expect(body.errors[0].param).toBe('url');
    expect(body.errors[0].message).toMatch(why);
  });

  it.each(['https://[64:ff9b::808:808]/hook', 'https://[2002:808:808::1]/hook', 'https://[::ffff:0:808:808]/hook'])(
    'accepts %s at creation: the IPv4 it carries (8.8.8.8) is public',
    async (url) => {
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: auth,
        payload: { url, events: ['price.changed'] },
      });
      expect(res.statusCode, res.body).toBe(201);
      await app.inject({ method: 'DELETE', url: `/api/v1/webhooks/${res.json().id}`, headers: auth });
    },
  );

  it('refuses IPv6 forms carrying IPv4 loopback at delivery too, before any connection', async () => {
    const sender = createSender({ allowHttp: true, allowPrivate: false });
    try {
      for (const host of ['[::127.0.0.1]', '[64:ff9b:1::7f00:1]', '[2002:7f00:1::]', '[::ffff:0:7f00:1]']) {
        const r = await sender.send(`http://${host}:9/hook`, '{}', {});
        expect(r, host).toMatchObject({ ok: false, retryable: false });
        expect(r.error, host).toMatch(/refused target/);
      }
    } finally {
      sender.close();
    }
  });

  it('refuses a name resolving to loopback at delivery (connect-time DNS check)', async () => {
    const receiver = await startReceiver();
    const sender = createSender({ allowHttp: true, allowPrivate: false });
    try {
      const r = await sender.send(`http://localhost:${receiver.port}/hook`, '{}', {});
      expect(r).toMatchObject({ ok: false, retryable: false });
      expect(r.error).toMatch(/refused/);
      const literal = await sender.send(`http://127.0.0.1:${receiver.port}/hook`, '{}', {});
      expect(literal).toMatchObject({ ok: false, retryable: false });
      expect(receiver.all).toHaveLength(0);
    } finally {
      sender.close();
      await receiver.stop();
    }
  });

  it('never follows a redirect (to loopback)', async () => {
    const target = await startReceiver();
    const redirector = await startReceiver();
    redirector.answer = () => ({ status: 302, headers: { location: `http://127.0.0.1:${target.port}/hook` } });
    // Private addresses allowed so the redirector itself is reachable: only the redirect is under test.
    const sender = createSender({ allowHttp: true, allowPrivate: true });
    try {
      const r = await sender.send(redirector.url, '{}', {});
      expect(r).toMatchObject({ ok: false, retryable: false, status: 302 });
      expect(r.error).toMatch(/redirects are not followed/);
      expect(redirector.all).toHaveLength(1);
      expect(target.all).toHaveLength(0);
    } finally {
      sender.close();
      await target.stop();
      await redirector.stop();
    }
  });
});
