/** The OpenAPI (zod) shape of GET /api/v1/status; the same object the route serialises. */
import { z } from 'zod';
import { FETCH_TIERS, type FetchTier } from '../config.js';

// Every tier is always present (0 when unused): an object with one key per tier, not a record keyed by an enum,
// whose JSON Schema would list `required` keys without defining them.
const tierCounts = z.object(
  Object.fromEntries(FETCH_TIERS.map((t) => [t, z.number().int()])) as Record<FetchTier, z.ZodNumber>,
);

const rate = z.number().min(0).max(1).nullable();

const lookupFigures = z.object({
  lookups: z.number().int().describe('Live fetches (ok or failed) plus answers served from cache'),
  success_rate: rate.describe('Share of lookups answered (live or from cache); null without lookups'),
  outcomes: z.record(z.string(), z.number().int()).describe('`ok` and each error code seen (CONTRACT §3), with counts'),
  cache_share: rate.describe('Share of lookups answered from cache (hit, stale, shared)'),
  live_lookups: z.number().int(),
});

/** Per marketplace: counted per upstream request by the fetch layer. */
const upstreamFigures = z.object({
  requests: z.number().int().describe('Upstream requests sent (every attempt, every tier)'),
  bytes: z.number().int().describe('Body bytes received from upstream'),
  requests_per_live_lookup: z.number().nullable(),
  bytes_per_live_lookup: z.number().nullable(),
  p50_ms: z.number().nullable().describe('Upstream request latency, median: upper bound of its 25 %-wide bucket'),
  p95_ms: z.number().nullable(),
  tiers: tierCounts.describe('Upstream answers per fetch tier that got them'),
});

const operationUpstream = z
  .object({
    requests: z
      .number()
      .int()
      .describe("Upstream requests sent by this operation's live lookups (every attempt, every tier)"),
    bytes: z.number().int().describe('Body bytes of the answers passed to its parser'),
    requests_per_live_lookup: z.number().nullable(),
    bytes_per_live_lookup: z.number().nullable(),
    p50_ms: z
      .number()
      .nullable()
      .describe(
        "A live lookup's whole upstream time (queue, every request, retry and tier), median: upper bound of its 25 %-wide bucket; lookups refused before the wire are left out",
      ),
    p95_ms: z.number().nullable(),
    tiers: tierCounts.describe('Live lookups per fetch tier of the last answer they got'),
  })
  .describe("The live lookups' upstream figures, per operation (counted per lookup by the lookup service)");

const notable = z.object({ at: z.string(), operation: z.string(), reason: z.string() }).nullable();

const windowsOf = <T extends z.ZodType>(t: T) => z.object({ '5m': t, '1h': t });

const marketplaceStatus = z.object({
  site: z.string(),
  breaker: z.object({ state: z.enum(['closed', 'open', 'half-open']), reopens_at: z.string().nullable() }).nullable(),
  last_blocked: notable.describe('The last `upstream_blocked` lookup'),
  last_changed: notable.describe('The last `upstream_changed` lookup (a parser needs work)'),
  windows: windowsOf(lookupFigures.extend({ upstream: upstreamFigures })),
  operations: z.record(z.string(), windowsOf(lookupFigures.extend({ upstream: operationUpstream }))),
});

const statusView = z.object({
  instance: z.string(),
  generated_at: z.string(),
  marketplaces: z.record(z.string(), marketplaceStatus),
});

export const statusResponseSchema = z.object({
  shared: z.boolean().describe('True when the figures were gathered from every instance through Redis'),
  total: statusView.describe('The sum of every instance (with one instance, its own figures)'),
  instances: z.array(statusView),
});
