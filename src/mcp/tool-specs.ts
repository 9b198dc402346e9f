/**
 * Which tools exist: one declaration per HTTP route the tools call. Every lookup operation of the registry is one
 * (a marketplace or operation added there appears by itself); the other routes are listed below by operationId, and
 * a declared route that is not registered (a feature not built yet) simply has no tool.
 *
 * Names: `<site alias>_<operation>` for lookups (`stockx_product`, `goat_prices`, `chrono24_search`: the names an
 * assistant's user says), verb_noun for the rest (`price_history`, `track_product`, `delete_alert_subscription`).
 */
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { Config } from '../config.js';
import type { Registry } from '../operations/registry.js';
import { operationIdOf } from '../server/operation-routes.js';
import type { InputOptions } from './schemas.js';
import {
  summarizeHistory,
  summarizeProduct,
  summarizeRecord,
  summarizeTracked,
  summarizeTrackedList,
  summarizeWebhook,
  summarizeWebhookList,
  type Summarize,
} from './summary.js';

export interface ToolDeclaration {
  name: string;
  /** The OpenAPI operationId of the route the tool calls. */
  operationId: string;
  title: string;
  annotations: ToolAnnotations;
  /** The route's success schema, when the tool's answer differs (GOAT's camelCase products). */
  output?: z.ZodType;
  input?: InputOptions;
  /** Query parameters the tool always sends (the history as JSON). */
  fixedQuery?: Record<string, string>;
  /** The short text an assistant can quote. */
  summarize: Summarize;
  /** True for the price history: its series also as a chart image. */
  chart?: boolean;
}

const READ = { readOnlyHint: true, destructiveHint: false, openWorldHint: false } as const;
const LOOKUP = { readOnlyHint: true, destructiveHint: false, openWorldHint: true } as const;

/** `stockx` + `resale-a.product` → `stockx_product` (MCP tool names: letters, digits, `_`, `-`). */
export function lookupToolName(alias: string, operation: string): string {
  return `${alias}_${operation.slice(operation.indexOf('.') + 1)}`.replace(/[^A-Za-z0-9_]/g, '_');
}

/** One tool per lookup operation of the registry. */
export function lookupTools(registry: Registry, config: Config): ToolDeclaration[] {
  return registry.operations.map((op) => {
    const { alias, site } = registry.marketplace(op.marketplace);
    return {
      name: lookupToolName(alias, op.name),
      operationId: operationIdOf(op),
      title: `${site}: ${op.summary}`,
      annotations: { ...LOOKUP, idempotentHint: true },
      output: op.answerForm?.chosenBy(config) ? op.answerForm.schema : op.record,
      summarize: summarizeRecord(site, op),
    };
  });
}

/** The tools of the other routes (a marketplace's site name from the registry, for the product summary). */
export const routeTools = (registry: Registry): ToolDeclaration[] => [
  {
    name: 'product_by_sku',
    operationId: 'productBySku',
    title: 'One product by SKU across StockX, GOAT and Nike, per size',
    annotations: { ...LOOKUP, idempotentHint: true },
    summarize: summarizeProduct((id) => registry.marketplace(id).site),
  },
  {
    name: 'price_history',
    operationId: 'history',
    title: 'Price history of a lookup',
    annotations: { ...READ, idempotentHint: true },
    input: {
      omit: ['format'],
      extra: {
        chart: {
          type: 'string',
          enum: ['png', 'svg', 'none'],
          default: 'png',
          description:
            'The series as a chart image beside the data: `png` (lines, each named by its colour in the text), ' +
            "`svg` (the service's chart with axes and legend, for clients that show SVG), or `none` for data only",
        },
      },
    },
    fixedQuery: { format: 'json' },
    summarize: summarizeHistory,
    chart: true,
  },
  {
    name: 'list_tracked_products',
    operationId: 'listTracked',
    title: 'Your tracked products',
    annotations: { ...READ, idempotentHint: true },
    summarize: summarizeTrackedList,
  },
  {
    name: 'track_product',
    operationId: 'trackProduct',
    title: 'Track a product (refetched on schedule)',
    // Its first fetch happens at once, on the marketplace.
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    summarize: summarizeTracked,
  },
  {
    name: 'set_tracked_paused',
    operationId: 'setTrackedPaused',
    title: 'Pause or resume a tracked product',
    // Kept with its history either way; resuming fetches it once at once, on the marketplace.
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    summarize: summarizeTracked,
  },
  {
    name: 'untrack_product',
    operationId: 'untrackProduct',
    title: 'Stop tracking a product',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    summarize: (_c, args) => `Stopped tracking ${String(args.id)} (its recorded history stays).`,
  },
  {
    name: 'list_alert_subscriptions',
    operationId: 'listWebhooks',
    title: 'Your alert subscriptions',
    annotations: { ...READ, idempotentHint: true },
    summarize: summarizeWebhookList,
  },
  {
    name: 'create_alert_subscription',
    operationId: 'createWebhook',
    title: 'Subscribe to price alerts',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    summarize: summarizeWebhook,
  },
  {
    name: 'delete_alert_subscription',
    operationId: 'deleteWebhook',
    title: 'Delete an alert subscription',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    summarize: (_c, args) => `Deleted alert subscription ${String(args.id)}.`,
  },
];
