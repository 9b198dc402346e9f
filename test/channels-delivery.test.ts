/**
 * Alert channels delivered to real local counterparts through the app's own queue: a fake Telegram Bot API and a
 * fake ntfy server over HTTP on loopback (the webhook receiver), and a real SMTP server in this process. Each gets a
 * message a person reads (product, size, marketplace, old → new with currency, change %, link; a subject for
 * e-mail), retries on 5xx and on a refused SMTP connection end in one delivery, tokens and passwords never come back
 * from list/get, and the target guard refuses loopback channel hosts unless the operator allows private targets.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { auth, testApp } from './support/app.js';
import { priceObservation } from './support/observations.js';
import { closedPort } from './support/ports.js';
import { expectProblem } from './support/problem.js';
import { localCertificate, smtpReceiver, type SmtpReceiver } from './support/smtp-receiver.js';
import { startReceiver, type Receiver } from './support/webhook-receiver.js';
import type { ObservationBatch } from '../src/history/observation.js';

const LOCAL = { MARKETLENS_WEBHOOK_ALLOW_HTTP: 'true', MARKETLENS_WEBHOOK_ALLOW_PRIVATE: 'true' };
const TIMING = { baseDelayMs: 40, maxDelayMs: 200, pollMs: 20 };
const BOT_TOKEN = '123456789:AAH-secret_bot_token';
const NTFY_TOKEN = 'tk_secretntfytoken42';
const SMTP_PASSWORD = 'smtp-secret-pw';

let minute = 0;
/** A price of the Air Jordan 1 Chicago, size 10, on resale-a: a drop from `from` to `to` after the first call. */
function observed(amount: number): ObservationBatch {
  const batch = priceObservation(++minute, amount, { productId: 'p1' });
  return {
    ...batch,
    products: [
      {
        marketplace: 'resale-a',
        productId: 'p1',
        name: 'Air Jordan 1 Chicago',
        url: 'https://stockx.com/air-jordan-1-chicago',
        image: null,
        sku: '555088-101',
        domain: 'stockx.com',
      },
    ],
  };
}

async function create(app: FastifyInstance, payload: object): Promise<{ id: string; url: string; channel: object }> {
  const res = await app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: auth, payload });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** The subscription's deliveries once none is pending (read from the API: the row is the thing waited on). */
async function settled(
  app: FastifyInstance,
  id: string,
): Promise<{ status: string; attempts: number; error: string | null; response_code: number | null }[]> {
  for (;;) {
    const data = (await app.inject({ url: `/api/v1/webhooks/${id}/deliveries`, headers: auth })).json().data;
    if (data.length > 0 && data.every((d: { status: string }) => d.status === 'delivered' || d.status === 'failed'))
      return data;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('alert channels delivered to local counterparts', () => {
  let app: FastifyInstance;
  let telegram: Receiver;
  let ntfy: Receiver;
  let smtp: SmtpReceiver;
  let smtpPort: number;

  beforeAll(async () => {
    [telegram, ntfy, smtpPort] = await Promise.all([startReceiver(), startReceiver(), closedPort()]);
    smtp = smtpReceiver({ 'alerts@lan.test': SMTP_PASSWORD });
    app = await testApp(
      { ...LOCAL, MARKETLENS_TELEGRAM_API_URL: `http://127.0.0.1:${telegram.port}` },
      { alerts: { timing: TIMING } },
    );
  });
  afterAll(async () => {
    await app?.close();
    await Promise.all([telegram?.stop(), ntfy?.stop(), smtp?.stop()]);
  });

  it('Telegram: sendMessage with a readable text, retried after a 502, delivered once; the token never shown', async () => {
    telegram.answer = (_req, n) => ({ status: n === 0 ? 502 : 200 });
    const sub = await create(app, { channel: `tgram://${BOT_TOKEN}/-1001234567`, events: ['price.changed'] });
    expect(sub.url).toBe('tgram://…/-1001234567');
    app.alerts.handleObservations(observed(300));
    app.alerts.handleObservations(observed(270));
    await telegram.answered(1);
    const deliveries = await settled(app, sub.id);
    expect(deliveries).toMatchObject([{ status: 'delivered', attempts: 2 }]);
    expect(telegram.all).toHaveLength(2);
    const sent = telegram.received[0]!;
    expect(sent.path).toBe(`/bot${BOT_TOKEN}/sendMessage`);
    const body = JSON.parse(sent.raw);
    expect(body.chat_id).toBe('-1001234567');
    expect(body.text).toBe(
      [
        'Air Jordan 1 Chicago (555088-101) — size 10',
        'resale-a: 300 USD → 270 USD (-10 %)',
        'https://stockx.com/air-jordan-1-chicago',
      ].join('\n'),
    );
    const listed = await app.inject({ url: '/api/v1/webhooks', headers: auth });
    const got = await app.inject({ url: `/api/v1/webhooks/${sub.id}`, headers: auth });
    for (const res of [listed, got]) expect(res.body).not.toContain('AAH-secret');
    expect(got.json().channel).toEqual({ type: 'telegram', chat_id: '-1001234567' });
  });

  it('ntfy: JSON publish with title, priority and tags by event, click link, token; retried after a 503', async () => {
    ntfy.answer = (_req, n) => ({ status: n === 0 ? 503 : 200 });
    const sub = await create(app, {
      channel: {
        type: 'ntfy',
        server: `http://127.0.0.1:${ntfy.port}`,
        topic: 'sneakers',
        token: NTFY_TOKEN,
        tags: ['shoe'],
      },
      events: ['price.changed'],
    });
    expect(sub.url).toBe(`ntfy://…@127.0.0.1:${ntfy.port}/sneakers`);
    app.alerts.handleObservations(observed(250));
    await ntfy.answered(1);
    expect(await settled(app, sub.id)).toMatchObject([{ status: 'delivered', attempts: 2 }]);
    const sent = ntfy.received[0]!;
    expect(sent.path).toBe('/');
    expect(sent.headers.authorization).toBe(`Bearer ${NTFY_TOKEN}`);
    expect(JSON.parse(sent.raw)).toEqual({
      topic: 'sneakers',
      title: 'Air Jordan 1 Chicago size 10: 270 USD → 250 USD (-7.41 %)',
      message:
        'Air Jordan 1 Chicago (555088-101) — size 10\nresale-a: 270 USD → 250 USD (-7.41 %)\nhttps://stockx.com/air-jordan-1-chicago',
      priority: 4,
      tags: ['chart_with_downwards_trend', 'shoe'],
      click: 'https://stockx.com/air-jordan-1-chicago',
    });
    const got = await app.inject({ url: `/api/v1/webhooks/${sub.id}`, headers: auth });
    expect(got.body).not.toContain(NTFY_TOKEN);
    expect(got.json().channel).toMatchObject({ type: 'ntfy', topic: 'sneakers', has_token: true });
  });

  it('e-mail: refused while the SMTP server is down, then delivered once with subject, text and login', async () => {
    const sub = await create(app, {
      url: `mailto://alerts%40lan.test:${SMTP_PASSWORD}@127.0.0.1:${smtpPort}?to=me@lan.test`,
      events: ['price.changed'],
    });
    expect(sub.url).toBe(
      `mailto://alerts%40lan.test:…@127.0.0.1:${smtpPort}/?to=me@lan.test&from=alerts@lan.test&mode=none`,
    );
    app.alerts.handleObservations(observed(260));
    // Wait for a refused attempt (the row says so), then start the server on that port.
    for (;;) {
      const [d] = (await app.inject({ url: `/api/v1/webhooks/${sub.id}/deliveries`, headers: auth })).json().data;
      if (d?.attempts >= 1 && d.status === 'pending') {
        expect(d.error).toMatch(/ECONNREFUSED|connect/i);
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    await smtp.listen(smtpPort);
    await smtp.waitFor(1);
    const deliveries = await settled(app, sub.id);
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]!.status).toBe('delivered');
    expect(deliveries[0]!.attempts).toBeGreaterThan(1);
    expect(smtp.mails).toHaveLength(1);
    const mail = smtp.mails[0]!;
    expect(mail).toMatchObject({ from: 'alerts@lan.test', to: ['me@lan.test'], user: 'alerts@lan.test' });
    expect(mail.subject).toBe('[marketlens] price.changed: Air Jordan 1 Chicago size 10: 250 USD → 260 USD (+4 %)');
    expect(mail.text).toContain('Air Jordan 1 Chicago (555088-101) — size 10\nresale-a: 250 USD → 260 USD (+4 %)');
    expect(mail.text).toContain('https://stockx.com/air-jordan-1-chicago');
    expect(mail.text).not.toMatch(/[{}"]/);
    const listed = await app.inject({ url: '/api/v1/webhooks', headers: auth });
    expect(listed.body).not.toContain(SMTP_PASSWORD);
  });

  it('e-mail: a wrong password fails at once (not retried); starttls refuses a server without STARTTLS', async () => {
    const wrong = await create(app, {
      channel: {
        type: 'email',
        host: '127.0.0.1',
        port: smtp.port,
        tls_mode: 'none',
        username: 'alerts@lan.test',
        password: 'wrong',
        from: 'alerts@lan.test',
        to: ['me@lan.test'],
      },
      events: ['price.changed'],
    });
    const starttls = await create(app, {
      channel: `mailtos://alerts%40lan.test:${SMTP_PASSWORD}@127.0.0.1:${smtp.port}?to=me@lan.test`,
      events: ['price.changed'],
    });
    const before = smtp.mails.length;
    await app.inject({ method: 'POST', url: `/api/v1/webhooks/${wrong.id}/test`, headers: auth });
    await app.inject({ method: 'POST', url: `/api/v1/webhooks/${starttls.id}/test`, headers: auth });
    const [refused] = await settled(app, wrong.id);
    expect(refused).toMatchObject({ status: 'failed', attempts: 1, response_code: 535 });
    expect(smtp.refusedLogins).toBe(1);
    const [plain] = await settled(app, starttls.id);
    expect(plain).toMatchObject({ status: 'failed', attempts: 1 });
    expect(plain!.error).toMatch(/STARTTLS/i);
    expect(smtp.mails.length).toBe(before);
  });
  it('PATCH moves a subscription between channels and back to a webhook; secrets stay hidden', async () => {
    const sub = await create(app, { channel: `tgram://${BOT_TOKEN}/42`, events: ['price.changed'] });
    const patch = (payload: object) =>
      app.inject({ method: 'PATCH', url: `/api/v1/webhooks/${sub.id}`, headers: auth, payload });
    const toNtfy = await patch({ channel: `ntfy://:${NTFY_TOKEN}@127.0.0.1:${ntfy.port}/moved` });
    expect(toNtfy.statusCode, toNtfy.body).toBe(200);
    expect(toNtfy.json()).toMatchObject({
      url: `ntfy://…@127.0.0.1:${ntfy.port}/moved`,
      channel: { type: 'ntfy', topic: 'moved', has_token: true },
    });
    expect(toNtfy.body).not.toContain(NTFY_TOKEN);
    const bad = await patch({ channel: { type: 'email', host: 'smtp.example.com', from: 'a@b.example', to: [] } });
    expect(bad.json().errors[0].param).toBe('channel.to');
    const toWebhook = await patch({ url: `http://127.0.0.1:${ntfy.port}/hook` });
    expect(toWebhook.json()).toMatchObject({ url: `http://127.0.0.1:${ntfy.port}/hook`, channel: null });
    await app.inject({ method: 'DELETE', url: `/api/v1/webhooks/${sub.id}`, headers: auth });
  });
});

describe('alert channels and the target guard (defaults: no private addresses)', () => {
  let app: FastifyInstance;
  let botApi: Receiver;
  beforeAll(async () => {
    botApi = await startReceiver();
    // The operator pointed the Bot API at loopback without allowing private targets: sends are refused.
    app = await testApp(
      { MARKETLENS_TELEGRAM_API_URL: `https://127.0.0.1:${botApi.port}` },
      { alerts: { timing: TIMING } },
    );
  });
  afterAll(async () => {
    await app?.close();
    await botApi?.stop();
  });

  it('refuses a channel send to a loopback address at delivery too, without retrying or connecting', async () => {
    const sub = await create(app, { channel: `tgram://${BOT_TOKEN}/7`, events: ['price.changed'] });
    await app.inject({ method: 'POST', url: `/api/v1/webhooks/${sub.id}/test`, headers: auth });
    const [row] = await settled(app, sub.id);
    expect(row).toMatchObject({ status: 'failed', attempts: 1 });
    expect(row!.error).toMatch(/^refused target: url: 127\.0\.0\.1 is a loopback/);
    expect(row!.error).not.toContain('AAH-secret');
    expect(botApi.all).toHaveLength(0);
  });

  it('refuses loopback and private channel hosts, and bad channels, with a 400 naming the field', async () => {
    const bad = async (payload: object, param: string) => {
      const body = expectProblem(
        await app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: auth, payload }),
        400,
        'invalid_parameter',
      );
      expect(body.errors[0].param).toBe(param);
    };
    const events = ['price.changed'];
    await bad({ channel: 'ntfys://127.0.0.1/sneakers', events }, 'channel.server');
    await bad({ channel: 'ntfys://localhost/sneakers', events }, 'channel.server');
    await bad({ url: 'ntfys://10.1.2.3:8080/sneakers', events }, 'channel.server');
    await bad({ channel: 'ntfy://ntfy.example.com/sneakers', events }, 'channel.server'); // http needs the operator
    await bad({ channel: 'mailtos://u:p@127.0.0.1:587?to=a@b.example', events }, 'channel.host');
    await bad({ channel: 'mailtos://u:p@169.254.169.254?to=a@b.example', events }, 'channel.host');
    await bad({ channel: 'mailtos://u:p@localhost?to=a@b.example', events }, 'channel.host');
    await bad({ channel: 'tgram://nope/123', events }, 'channel.bot_token');
    await bad({ channel: 'gopher://x/y', events }, 'channel');
    await bad({ channel: { type: 'telegram', bot_token: BOT_TOKEN }, events }, 'channel.chat_id');
    await bad({ url: `tgram://${BOT_TOKEN}/1`, channel: `tgram://${BOT_TOKEN}/1`, events }, 'channel');
    await bad({ events }, 'url');
  });

  it('accepts a Telegram channel (the operator owns the Bot API address) and ntfy://topic on the default server', async () => {
    const tg = await create(app, { channel: `tgram://${BOT_TOKEN}/@my_channel`, events: ['stock.changed'] });
    expect(tg.url).toBe('tgram://…/@my_channel');
    const topic = await create(app, { channel: 'ntfy://sneaker-drops', events: ['price.below'] });
    expect(topic).toMatchObject({ url: 'ntfy://sneaker-drops', channel: { type: 'ntfy', server: null } });
  });

  it('documents the channel forms in OpenAPI: Apprise URL or structured object, with examples', async () => {
    const doc = (await app.inject({ url: '/openapi.json' })).json();
    const create = doc.paths['/api/v1/webhooks'].post.requestBody.content['application/json'].schema;
    const channel = create.properties.channel;
    expect(channel.anyOf[0]).toMatchObject({ type: 'string' });
    expect(channel.anyOf[0].description).toMatch(/tgram:\/\/.*ntfy.*mailto/);
    expect(channel.examples.length).toBeGreaterThanOrEqual(6);
    const union = doc.components.schemas[channel.anyOf[1].$ref.split('/').at(-1)];
    const forms = (union.oneOf ?? union.anyOf).map(
      (r: { $ref: string }) => doc.components.schemas[r.$ref.split('/').at(-1)!],
    );
    expect(forms.map((f: { properties: { type: { const: string } } }) => f.properties.type.const)).toEqual([
      'telegram',
      'ntfy',
      'email',
    ]);
    expect(forms[2].properties.tls_mode.enum).toEqual(['tls', 'starttls', 'none']);
    const read = doc.components.schemas.Webhook;
    expect(read.properties.channel.description).toMatch(/without its secrets/);
  });
});

describe('e-mail TLS modes against a mail server with its own CA (MARKETLENS_SMTP_CA_FILE)', () => {
  let app: FastifyInstance;
  let upgrading: SmtpReceiver;
  let implicit: SmtpReceiver;
  let caDir: string;
  const users = { 'alerts@lan.test': SMTP_PASSWORD };

  beforeAll(async () => {
    const cert = localCertificate();
    caDir = mkdtempSync(join(tmpdir(), 'marketlens-ca-'));
    writeFileSync(join(caDir, 'ca.pem'), cert.cert);
    upgrading = smtpReceiver(users, cert);
    implicit = smtpReceiver(users, { ...cert, secure: true });
    await Promise.all([upgrading.listen(0), implicit.listen(0)]);
    app = await testApp({ ...LOCAL, MARKETLENS_SMTP_CA_FILE: join(caDir, 'ca.pem') }, { alerts: { timing: TIMING } });
  });
  afterAll(async () => {
    await app?.close();
    await Promise.all([upgrading?.stop(), implicit?.stop()]);
    rmSync(caDir, { recursive: true, force: true });
  });

  it('starttls upgrades before logging in; tls speaks TLS from the first byte', async () => {
    const viaStarttls = await create(app, {
      channel: `mailtos://alerts%40lan.test:${SMTP_PASSWORD}@127.0.0.1:${upgrading.port}?to=me@lan.test`,
      events: ['price.changed'],
    });
    const viaTls = await create(app, {
      channel: `mailtos://alerts%40lan.test:${SMTP_PASSWORD}@127.0.0.1:${implicit.port}?to=me@lan.test&mode=ssl`,
      events: ['price.changed'],
    });
    for (const sub of [viaStarttls, viaTls])
      await app.inject({ method: 'POST', url: `/api/v1/webhooks/${sub.id}/test`, headers: auth });
    await Promise.all([upgrading.waitFor(1), implicit.waitFor(1)]);
    for (const server of [upgrading, implicit]) {
      expect(server.mails[0]).toMatchObject({
        secure: true,
        user: 'alerts@lan.test',
        subject: '[marketlens] webhook.test: test message from marketlens',
      });
    }
    expect(await settled(app, viaTls.id)).toMatchObject([{ status: 'delivered', attempts: 1 }]);
  });
});
