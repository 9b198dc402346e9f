/**
 * Tracked products over HTTP: `POST /api/v1/db/products` (track), `GET /api/v1/tracked`, and
 * `DELETE`/`PATCH /api/v1/db/products/{id}` (stop, pause or resume). The jobs themselves run on the core's
 * scheduler (src/history/track-job.ts).
 */
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { z } from 'zod';
import { MarketlensError } from '../errors.js';
import { COSTS_ONE_REQUEST } from '../limits/http.js';
import { isSkuTrackBody, parseSkuTrackRequest, SKU_TRACK_FIELDS } from '../products/track-sku.js';
import { getJob, removeJob, setJobPaused, type Scheduler } from '../jobs/index.js';
import type { Registry } from '../operations/registry.js';
import { problemResponses } from '../server/openapi.js';
import type { Store } from '../store/index.js';
import { RECORDED_OPERATIONS, recordedOperations } from './extract/index.js';
import { withRecorded } from './recorded-schema.js';
import { HISTORY_TAG } from './tag.js';
import { addTrackedWithinCap, listTrackedByOwner } from './track-cap.js';
import { DEFAULT_INTERVAL_S, MIN_INTERVAL_S, parseTrackRequest, TRACK_KIND, trackDoc } from './track.js';

export interface TrackRouteDeps {
  /** Authenticates the caller and counts the request against its rate limit and quota (guardWithLimits). */
  guard: onRequestHookHandler;
  store: Store;
  /** Told when the job table changed, so it need not wait for its next poll. */
  scheduler: Pick<Scheduler, 'changed'>;
  /** MARKETLENS_MAX_TRACKED_PER_KEY. */
  maxTrackedPerKey: number;
  /** The app's marketplaces and operations: whose lookups can be tracked. */
  registry: Registry;
}

export function registerTrackRoutes(app: FastifyInstance, deps: TrackRouteDeps): void {
  const { store, scheduler, registry } = deps;
  app.post('/api/v1/db/products', {
    onRequest: deps.guard,
    schema: {
      operationId: 'trackProduct',
      tags: [HISTORY_TAG],
      summary: 'Track a product (refetched on schedule)',
      description: TRACK_DESCRIPTION,
      security: [{ apiKey: [] }],
      body: withRecorded(trackBodySchema, recordedOperations(registry)),
      response: { 201: trackedSchema, ...problemResponses([400, 401, 403, 409, 429]) },
    },
    handler: async (req, reply) => {
      if (!req.apiKey) throw new MarketlensError('missing_api_key', 'Send your API key in the x-api-key header');
      const ownerKeyId = req.apiKey.id;
      const { payload, intervalMs } = isSkuTrackBody(req.body)
        ? parseSkuTrackRequest(req.body, ownerKeyId)
        : parseTrackRequest(req.body, ownerKeyId, registry);
      const job = await addTrackedWithinCap(
        store.db,
        store.engine,
        deps.maxTrackedPerKey,
        { ...payload, ownerKeyId },
        intervalMs,
      );
      scheduler.changed();
      return reply.code(201).send(trackDoc(job));
    },
  });

  app.get('/api/v1/tracked', {
    onRequest: deps.guard,
    schema: {
      operationId: 'listTracked',
      tags: [HISTORY_TAG],
      summary: 'Your tracked products',
      description:
        'The products this key tracks (`POST /api/v1/db/products`), oldest first: what is refetched, how often, ' +
        `when next, and the last error. ${COSTS_ONE_REQUEST}`,
      security: [{ apiKey: [] }],
      response: { 200: z.object({ data: z.array(trackedSchema) }), ...problemResponses([401, 403, 429]) },
    },
    handler: async (req) => {
      if (!req.apiKey) throw new MarketlensError('missing_api_key', 'Send your API key in the x-api-key header');
      return { data: (await listTrackedByOwner(store.db, store.engine, req.apiKey.id)).map(trackDoc) };
    },
  });

  app.delete('/api/v1/db/products/:id', {
    onRequest: deps.guard,
    schema: {
      operationId: 'untrackProduct',
      tags: [HISTORY_TAG],
      summary: 'Stop tracking a product',
      description:
        'Stops the refetches of a tracked product (its recorded history stays). Only the key that tracked it may stop it. ' +
        COSTS_ONE_REQUEST,
      security: [{ apiKey: [] }],
      params: z.object({ id: z.string().max(100) }),
      response: { 204: z.null().describe('Stopped'), ...problemResponses([400, 401, 403, 404, 429]) },
    },
    handler: async (req, reply) => {
      const { id } = req.params as { id: string };
      const job = await getJob(store.db, id);
      const owner = (job?.payload as { ownerKeyId?: string | null } | undefined)?.ownerKeyId;
      if (!job || job.kind !== TRACK_KIND || (owner && owner !== req.apiKey?.id)) {
        throw new MarketlensError('not_found', `No tracked product ${id} for this key`);
      }
      await removeJob(store.db, id, TRACK_KIND);
      scheduler.changed();
      return reply.code(204).send();
    },
  });

  app.patch('/api/v1/db/products/:id', {
    onRequest: deps.guard,
    schema: {
      operationId: 'setTrackedPaused',
      tags: [HISTORY_TAG],
      summary: 'Pause or resume a tracked product',
      description:
        'Body `{"paused": true}` stops the refetches of a tracked product and keeps it (its history, and its place ' +
        'under the per-key cap); `{"paused": false}` resumes it: one fetch at once, then every interval from there ' +
        '(the fetches missed while paused are not made up). A paused product answers `paused: true` and ' +
        '`nextRunAt: null`. Only the key that tracked it may pause it. ' +
        COSTS_ONE_REQUEST,
      security: [{ apiKey: [] }],
      params: z.object({ id: z.string().max(100) }),
      body: pauseBodySchema,
      response: { 200: trackedSchema, ...problemResponses([400, 401, 403, 404, 429]) },
    },
    handler: async (req) => {
      const { id } = req.params as { id: string };
      const { paused } = req.body as z.infer<typeof pauseBodySchema>;
      const job = await getJob(store.db, id);
      const owner = (job?.payload as { ownerKeyId?: string | null } | undefined)?.ownerKeyId;
      if (!job || job.kind !== TRACK_KIND || (owner && owner !== req.apiKey?.id)) {
        throw new MarketlensError('not_found', `No tracked product ${id} for this key`);
      }
      const updated = await setJobPaused(store.db, id, paused, TRACK_KIND);
      if (!updated) throw new MarketlensError('not_found', `No tracked product ${id} for this key`);
      scheduler.changed();
      return trackDoc(updated);
    },
  });
}

const trackBodySchema = z
  .looseObject({
    operation: z
      .enum(RECORDED_OPERATIONS as [string, ...string[]])
      .optional()
      .describe('The lookup to repeat (required unless `sku` is given)'),
    ...SKU_TRACK_FIELDS,
    query: z.string().optional().describe("The lookup's `query`; its other parameters (e.g. `country`) go beside it"),
    interval: z
      .union([z.number(), z.string()])
      .optional()
      .describe(
        `Seconds between fetches (or \`15m\`, \`1h\`); at least ${MIN_INTERVAL_S}, default ${DEFAULT_INTERVAL_S}`,
      ),
  })
  .meta({
    examples: [
      { operation: 'resale-b.prices', query: '1341930', country: 'US', interval: 900 },
      { sku: 'DD1391-100', country: 'US', interval: '15m' },
    ],
  });

const pauseBodySchema = z
  .object({ paused: z.boolean().describe('true pauses the refetches, false resumes them') })
  .strict()
  .meta({ examples: [{ paused: true }] });

const trackedSchema = z
  .object({
    id: z.string(),
    operation: z.string(),
    params: z.record(z.string(), z.unknown()),
    interval: z.number().describe('Seconds'),
    nextRunAt: z.string().nullable().describe('When it is next refetched; null while paused'),
    paused: z.boolean().describe('Paused: not refetched until resumed (`PATCH /api/v1/db/products/{id}`)'),
    lastRunAt: z.string().nullable(),
    lastError: z.string().nullable(),
    runs: z.number().int(),
    createdAt: z.string(),
  })
  .meta({
    examples: [
      {
        id: '0b7e7c1e-5d7a-4f7e-9d8a-2f1f2c3d4e5f',
        operation: 'resale-b.prices',
        params: { query: '1341930', country: 'US' },
        interval: 900,
        nextRunAt: '2026-11-24T12:00:00.000Z',
        paused: false,
        lastRunAt: null,
        lastError: null,
        runs: 0,
        createdAt: '2026-11-24T12:00:00.000Z',
      },
    ],
  });

const TRACK_DESCRIPTION =
  'Refetches a lookup on a schedule through the normal lookup path (cache, de-duplication, upstream politeness and ' +
  "this key's rate limit and quota), so its prices build up in the history without anyone asking. Body: " +
  "`{operation, query, …the lookup's other parameters, interval}`, or by SKU `{sku, country?, currency?, interval}`: " +
  'each run is then one product answer across StockX, GOAT and Nike (`operation` `product` in the answer). ' +
  'The first fetch happens at once. With ' +
  '`MARKETLENS_REDIS_URL` every instance shares the schedule (each product fetched once per interval across the ' +
  'cluster); otherwise the schedule lives in the database and survives a restart. ' +
  'Beyond Retailed: its `POST /db/products` is not documented. A key tracks at most MARKETLENS_MAX_TRACKED_PER_KEY ' +
  `products (default 1000): past it, 409 \`limit_reached\`. ${COSTS_ONE_REQUEST} Each scheduled fetch counts as 1 too.`;
