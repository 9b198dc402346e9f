/**
 * /api/v1/webhooks: alert subscriptions of the calling key (OpenAPI tag "Webhooks"). A subscription of another key
 * answers 404 like one that does not exist. The signing secret is returned once, by POST.
 */
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { MarketlensError } from '../errors.js';
import { COSTS_ONE_REQUEST } from '../limits/http.js';
import { EVENT_TYPES, filterSchema, normaliseFilter } from './events.js';
import type { AlertEngine } from './engine.js';
import type { Subscription } from './subscriptions.js';
import { checkChannel, redactChannel } from './channels/apprise.js';
import { resolveTarget } from './channels/target.js';
import { channelObjectSchema } from './channels/types.js';
import type { Engine } from '../store/index.js';

export const WEBHOOKS_PATH = '/api/v1/webhooks';

const TAG = 'Webhooks';

const eventsSchema = z.array(z.enum(EVENT_TYPES)).min(1).max(EVENT_TYPES.length).describe('Event types to receive');

const urlSchema = z
  .string()
  .min(1)
  .describe(
    'Where to POST events: https (http only with MARKETLENS_WEBHOOK_ALLOW_HTTP). Discord and Slack incoming-webhook URLs get their own message format. An Apprise-style channel URL (tgram://, ntfy://, ntfys://, mailto://, mailtos://) is read as `channel`.',
  );

const channelInputSchema = z
  .union([
    z
      .string()
      .min(1)
      .max(2048)
      .describe(
        'Apprise-style URL: tgram://{bot_token}/{chat_id}, ntfy[s]://[{user}:{password}@|{token}@]{host}/{topic}[?priority=high&tags=a,b], ntfy://{topic}, mailto[s]://{user}:{password}@{host}:{port}?to={a,b}&from={addr}&mode=ssl|starttls|none',
      ),
    channelObjectSchema,
  ])
  .describe(
    'Send to Telegram, ntfy or e-mail instead of a webhook (give `url` or `channel`). Tokens and passwords are stored and never shown again. See docs/channels.md.',
  )
  .meta({
    examples: [
      'tgram://123456789:AAH-example/-1001234567',
      'ntfys://tk_example@ntfy.example.com/sneakers?priority=high',
      'mailtos://me%40example.com:app-password@smtp.example.com:587?to=me@example.com',
      { type: 'telegram', bot_token: '123456789:AAH-example', chat_id: '-1001234567' },
      { type: 'ntfy', server: 'https://ntfy.example.com', topic: 'sneakers', token: 'tk_example' },
      {
        type: 'email',
        host: 'smtp.example.com',
        port: 587,
        tls_mode: 'starttls',
        username: 'me@example.com',
        password: 'app-password',
        from: 'me@example.com',
        to: ['me@example.com'],
      },
    ],
  });

const createSchema = z
  .object({
    url: urlSchema.optional(),
    channel: channelInputSchema.optional(),
    events: eventsSchema,
    filter: filterSchema.default({}),
    description: z.string().max(500).nullable().default(null),
  })
  .strict();

const patchSchema = z
  .object({
    url: urlSchema.optional(),
    channel: channelInputSchema.optional(),
    events: eventsSchema.optional(),
    filter: filterSchema.optional(),
    description: z.string().max(500).nullable().optional(),
    enabled: z
      .boolean()
      .optional()
      .describe('false pauses deliveries; true resumes a paused or auto-disabled subscription'),
  })
  .strict();

const webhookSchema = z
  .object({
    id: z.string(),
    url: z.string().describe('The webhook URL, or the channel as an Apprise-style URL with every secret shown as `…`'),
    channel: z
      .object({ type: z.enum(['telegram', 'ntfy', 'email']) })
      .catchall(z.unknown())
      .nullable()
      .describe(
        'The channel without its secrets (has_token / has_password say whether one is stored); null for a webhook',
      ),
    events: z.array(z.enum(EVENT_TYPES)),
    filter: filterSchema,
    description: z.string().nullable(),
    enabled: z.boolean(),
    disabled_reason: z.string().nullable().describe('Why deliveries stopped (e.g. failing for 3 days), or null'),
    failing_since: z.string().nullable().describe('Start of the current streak of failed deliveries, or null'),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Webhook' });

const createdSchema = webhookSchema
  .extend({ secret: z.string().describe('Signing secret (whsec_…), shown only in this answer') })
  .meta({ id: 'WebhookCreated' });

const deliverySchema = z
  .object({
    id: z.string().describe('The webhook-id header: the same on every retry'),
    event_type: z.string(),
    status: z.enum(['pending', 'inflight', 'delivered', 'failed']),
    attempts: z.number().int(),
    response_code: z.number().int().nullable(),
    latency_ms: z.number().int().nullable(),
    error: z.string().nullable(),
    created_at: z.string(),
    last_attempt_at: z.string().nullable(),
    next_attempt_at: z.string().nullable(),
    delivered_at: z.string().nullable(),
  })
  .meta({ id: 'WebhookDelivery' });

const idParams = z.object({ id: z.string().min(1).max(100) });

function view(s: Subscription) {
  return {
    id: s.id,
    url: s.url,
    channel: s.channel ? redactChannel(s.channel) : null,
    events: s.events,
    filter: s.filter,
    description: s.description,
    enabled: s.enabled,
    disabled_reason: s.disabledReason,
    failing_since: s.failingSince === null ? null : new Date(s.failingSince).toISOString(),
    created_at: new Date(s.createdAt).toISOString(),
    updated_at: new Date(s.updatedAt).toISOString(),
  };
}

/**
 * A structured channel checked before the body schema: the schema's union of string and channel forms can only say
 * "channel: Invalid input", this names the field (`channel.chat_id`) and what is wrong with it.
 */
async function checkChannelObject(req: FastifyRequest): Promise<void> {
  const body: unknown = req.body;
  if (typeof body !== 'object' || body === null || !('channel' in body)) return;
  const { channel } = body;
  if (typeof channel === 'object' && channel !== null) checkChannel(channel);
}

function notFound(id: string): MarketlensError {
  return new MarketlensError('route_not_found', `No webhook ${id} for this API key`);
}

export interface WebhookRouteDeps {
  /** Authenticates the caller and counts the request against its rate limit and quota (guardWithLimits). */
  guard: onRequestHookHandler;
  alerts: AlertEngine;
  problem: z.ZodType;
  /** The most subscriptions one key may own (MARKETLENS_MAX_WEBHOOKS_PER_KEY), on this database engine. */
  cap: { engine: Engine; max: number };
}

export function registerWebhookRoutes(app: FastifyInstance, deps: WebhookRouteDeps): void {
  const { guard, alerts, problem, cap } = deps;
  const r = app.withTypeProvider<ZodTypeProvider>();
  const errors = { 400: problem, 401: problem, 403: problem, 404: problem, 429: problem };
  const keyId = (req: FastifyRequest) => {
    if (!req.apiKey) throw new MarketlensError('missing_api_key', 'Send your API key in the x-api-key header');
    return req.apiKey.id;
  };

  r.post(WEBHOOKS_PATH, {
    onRequest: guard,
    preValidation: checkChannelObject,
    schema: {
      operationId: 'createWebhook',
      tags: [TAG],
      summary: 'Subscribe to price alerts',
      description:
        'Creates a subscription: every matching event is POSTed to `url` as `{type, timestamp, data}` with Standard Webhooks ' +
        'headers (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256>`) signed with the returned ' +
        '`secret`, which is shown only here. Failed deliveries are retried with exponential backoff for up to 24 h. ' +
        'Instead of `url`, `channel` sends a message a person reads to Telegram, ntfy or e-mail (an Apprise-style URL ' +
        'or a structured object; see docs/channels.md) through the same queue, order and retries; its tokens and ' +
        'passwords are never shown again. ' +
        'A key owns at most MARKETLENS_MAX_WEBHOOKS_PER_KEY subscriptions (default 100): past it, 409 `limit_reached`. ' +
        COSTS_ONE_REQUEST,
      security: [{ apiKey: [] }],
      body: createSchema,
      response: { 201: createdSchema, ...errors, 409: problem },
    },
    handler: async (req, reply) => {
      const owner = keyId(req);
      const target = await resolveTarget(req.body, alerts.policy);
      const sub = await alerts.subscriptions.createWithinCap(
        owner,
        {
          ...target,
          events: req.body.events,
          filter: normaliseFilter(req.body.filter),
          description: req.body.description,
        },
        cap,
      );
      return reply.code(201).send({ ...view(sub), secret: sub.secret });
    },
  });

  r.get(WEBHOOKS_PATH, {
    onRequest: guard,
    schema: {
      operationId: 'listWebhooks',
      tags: [TAG],
      summary: 'Your webhook subscriptions',
      description: 'Every subscription of the calling key, oldest first. ' + COSTS_ONE_REQUEST,
      security: [{ apiKey: [] }],
      response: { 200: z.object({ data: z.array(webhookSchema) }), ...errors },
    },
    handler: async (req) => ({ data: (await alerts.subscriptions.list(keyId(req))).map(view) }),
  });

  r.get(`${WEBHOOKS_PATH}/:id`, {
    onRequest: guard,
    schema: {
      operationId: 'getWebhook',
      tags: [TAG],
      summary: 'One webhook subscription',
      description: COSTS_ONE_REQUEST,
      security: [{ apiKey: [] }],
      params: idParams,
      response: { 200: webhookSchema, ...errors },
    },
    handler: async (req) => {
      const sub = await alerts.subscriptions.get(keyId(req), req.params.id);
      if (!sub) throw notFound(req.params.id);
      return view(sub);
    },
  });

  r.patch(`${WEBHOOKS_PATH}/:id`, {
    onRequest: guard,
    preValidation: checkChannelObject,
    schema: {
      operationId: 'updateWebhook',
      tags: [TAG],
      summary: 'Change a webhook subscription',
      description:
        'Changes the given fields; `enabled: true` resumes a paused or auto-disabled subscription. ' +
        COSTS_ONE_REQUEST,
      security: [{ apiKey: [] }],
      params: idParams,
      body: patchSchema,
      response: { 200: webhookSchema, ...errors },
    },
    handler: async (req) => {
      const owner = keyId(req);
      if (!(await alerts.subscriptions.get(owner, req.params.id))) throw notFound(req.params.id);
      const { url: _url, channel: _channel, ...rest } = req.body;
      const changesTarget = req.body.url !== undefined || req.body.channel !== undefined;
      const target = changesTarget ? await resolveTarget(req.body, alerts.policy) : {};
      const sub = await alerts.subscriptions.update(owner, req.params.id, {
        ...rest,
        ...target,
        filter: req.body.filter && normaliseFilter(req.body.filter),
      });
      if (!sub) throw notFound(req.params.id);
      if (req.body.enabled === true) alerts.resumed(sub.id);
      return view(sub);
    },
  });

  r.delete(`${WEBHOOKS_PATH}/:id`, {
    onRequest: guard,
    schema: {
      operationId: 'deleteWebhook',
      tags: [TAG],
      summary: 'Delete a webhook subscription and its queued deliveries',
      description: COSTS_ONE_REQUEST,
      security: [{ apiKey: [] }],
      params: idParams,
      response: { 204: z.null(), ...errors },
    },
    handler: async (req, reply) => {
      if (!(await alerts.subscriptions.remove(keyId(req), req.params.id))) throw notFound(req.params.id);
      return reply.code(204).send(null);
    },
  });

  r.post(`${WEBHOOKS_PATH}/:id/test`, {
    onRequest: guard,
    schema: {
      operationId: 'testWebhook',
      tags: [TAG],
      summary: 'Queue a signed test event',
      description:
        'Queues a `webhook.test` event for the subscription; see its outcome in /deliveries. ' + COSTS_ONE_REQUEST,
      security: [{ apiKey: [] }],
      params: idParams,
      response: { 202: z.object({ queued: z.literal(true) }), ...errors },
    },
    handler: async (req, reply) => {
      const sub = await alerts.subscriptions.get(keyId(req), req.params.id);
      if (!sub) throw notFound(req.params.id);
      await alerts.sendTest(sub);
      return reply.code(202).send({ queued: true as const });
    },
  });

  r.get(`${WEBHOOKS_PATH}/:id/deliveries`, {
    onRequest: guard,
    schema: {
      operationId: 'listWebhookDeliveries',
      tags: [TAG],
      summary: 'Recent deliveries of a subscription',
      description: 'Newest first: status, attempts, last response code and latency. ' + COSTS_ONE_REQUEST,
      security: [{ apiKey: [] }],
      params: idParams,
      querystring: z.object({ limit: z.coerce.number().int().min(1).max(500).default(50) }),
      response: { 200: z.object({ data: z.array(deliverySchema) }), ...errors },
    },
    handler: async (req) => {
      const sub = await alerts.subscriptions.get(keyId(req), req.params.id);
      if (!sub) throw notFound(req.params.id);
      return { data: await alerts.queue.list(sub.id, req.query.limit) };
    },
  });
}
