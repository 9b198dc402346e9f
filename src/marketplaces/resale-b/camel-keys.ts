/**
 * MARKETLENS_RESALE_B_PRODUCT_KEYS=camel: the GOAT product with GOAT's own camelCase keys (`brandName`,
 * `localizedSpecialDisplayPriceCents`, `productTemplateExternalPictures[].mainPictureUrl` …), the form Retailed served
 * in 2024 and clients written then read. Same values as the spec's snake_case record: the keys are the exact inverse
 * of the snake_case rule (util/snake-case.ts) and of the two names the spec neutralises.
 */
import { z } from 'zod';
import type { AnswerForm } from '../../operations/types.js';
import { PRODUCT_KEY_RENAMES, productRecordSchema } from './schema.js';

/** Spec name → GOAT's key, for the two names that are not the naive rule's. */
const CAMEL_RENAMES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(PRODUCT_KEY_RENAMES).map(([camel, snake]) => [snake, camel]),
);

/**
 * The inverse of snakeKey: each `_x` → `X`.
 * @example camelKey('taxonomy_level1') // 'taxonomyLevel1'; camelKey('is_m_a_p') // 'isMAP'
 */
export function camelKey(key: string): string {
  return CAMEL_RENAMES[key] ?? key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** Recursively camelCases object keys (arrays and nested objects included). */
export function camelKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelKeysDeep);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[camelKey(k)] = camelKeysDeep(v);
  return out;
}

/** The product record's JSON (as cached) with GOAT's keys. */
export function camelProductJson(json: string): string {
  return JSON.stringify(camelKeysDeep(JSON.parse(json)));
}

/** The same zod schema with camelCase keys at every level (descriptions kept; named parts get a `Camel` id). */
function camelSchema(schema: z.ZodType, named = true): z.ZodType {
  let out: z.ZodType;
  if (schema instanceof z.ZodObject) {
    const shape = Object.fromEntries(
      Object.entries(schema.shape as Record<string, z.ZodType>).map(([k, v]) => [camelKey(k), camelSchema(v)]),
    );
    out = z.object(shape).strict();
  } else if (schema instanceof z.ZodArray) {
    out = z.array(camelSchema(schema.element as z.ZodType));
  } else if (schema instanceof z.ZodNullable) {
    out = camelSchema(schema.unwrap() as z.ZodType).nullable();
  } else if (schema instanceof z.ZodOptional) {
    out = camelSchema(schema.unwrap() as z.ZodType).optional();
  } else {
    return schema;
  }
  const meta = z.globalRegistry.get(schema);
  if (meta?.id && named) return out.meta({ ...meta, id: `${meta.id}Camel` });
  return schema.description ? out.describe(schema.description) : out;
}

export const productCamelRecordSchema = camelSchema(productRecordSchema, false).meta({
  id: 'ResaleBProductCamel',
  description:
    "The same product with GOAT's own camelCase keys (`brandName`, `isAliasResellable`, `applePayOnlyPromo` …), " +
    'served when the operator sets MARKETLENS_RESALE_B_PRODUCT_KEYS=camel (the form Retailed served in 2024).',
});

/** The product's answer form chosen by MARKETLENS_RESALE_B_PRODUCT_KEYS=camel (routes, OpenAPI and MCP read it). */
export const camelProductAnswer: AnswerForm = {
  chosenBy: (config) => config.resaleBProductKeys === 'camel',
  fromRecordJson: camelProductJson,
  schema: productCamelRecordSchema,
  description: "snake_case (the spec, default) or, with MARKETLENS_RESALE_B_PRODUCT_KEYS=camel, GOAT's camelCase keys",
};
