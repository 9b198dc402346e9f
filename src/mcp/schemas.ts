/**
 * A route's zod schemas as a tool's schemas. Input: the route's path parameters, query and body merged into one
 * object's JSON Schema (what the client sees); the arguments reach the route as given and the route validates them,
 * with its own 400 naming the parameter. Output: an object schema
 * (MCP's structuredContent is an object), the route's answer itself or, for a list, wrapped as `{ results }`.
 */
import { z } from 'zod';
import type { CatalogedRoute } from './route-catalog.js';

type JsonSchema = Record<string, unknown>;

export interface InputOptions {
  /** Route inputs the tool sets itself (e.g. the history's `format`). */
  omit?: readonly string[];
  /** Tool-only arguments (JSON Schema by name), e.g. the history's `chart`. */
  extra?: Record<string, JsonSchema>;
}

/** The tool's input schema, and which arguments go to the path, the query and the body. */
export function toolInput(route: CatalogedRoute, options: InputOptions = {}) {
  const omit = new Set(options.omit ?? []);
  const properties: Record<string, JsonSchema> = {};
  const required = new Set<string>();
  const definitions: Record<string, unknown> = {};
  let closed = true;
  const where: Record<string, 'path' | 'query' | 'body'> = {};
  const parts: ['path' | 'query' | 'body', z.ZodType | undefined][] = [
    ['path', route.params],
    ['query', route.querystring],
    // A GET route's optional JSON body repeats query parameters (the finder's `query`): the query carries them.
    ['body', route.method === 'GET' ? undefined : route.body],
  ];
  for (const [part, schema] of parts) {
    if (!schema) continue;
    const js = objectSchemaOf(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }));
    if (!js) continue;
    Object.assign(definitions, js.$defs ?? {});
    if (js.additionalProperties !== undefined && js.additionalProperties !== false) closed = false;
    for (const [name, prop] of Object.entries((js.properties ?? {}) as Record<string, JsonSchema>)) {
      if (omit.has(name)) continue;
      properties[name] = prop;
      where[name] = part;
    }
    for (const name of (js.required ?? []) as string[]) if (!omit.has(name)) required.add(name);
  }
  Object.assign(properties, options.extra ?? {});
  const merged: JsonSchema = {
    type: 'object',
    properties,
    ...(required.size > 0 ? { required: [...required] } : {}),
    additionalProperties: !closed,
    ...(Object.keys(definitions).length > 0 ? { $defs: definitions } : {}),
  };
  // Listed as the route's JSON Schema, checked only as an object: the route validates the arguments, so a bad one is
  // its 400 naming the parameter (a tool error with the code), as on the API.
  return { schema: z.looseObject({}).meta(merged), where };
}

/** The object member of a schema (a nullish body is `anyOf: [object, null]`). */
function objectSchemaOf(js: JsonSchema): (JsonSchema & { $defs?: Record<string, unknown> }) | undefined {
  if (js.type === 'object') return js;
  const anyOf = js.anyOf as JsonSchema[] | undefined;
  const member = anyOf?.find((m) => m.type === 'object');
  return member ? { ...member, $defs: js.$defs as Record<string, unknown> | undefined } : undefined;
}

/** How a route's answer becomes structuredContent. */
export interface ToolOutput {
  schema: z.ZodObject;
  /** The answer (parsed JSON, or undefined for 204) → structuredContent. */
  wrap(answer: unknown, args: Record<string, unknown>): Record<string, unknown>;
}

/**
 * The output of a route answering `schema`: an object as it is, anything else as `{ results }`. Its JSON Schema is
 * made once here, not on every `tools/list` (records are large): the tool declares it, and the record itself was
 * already checked against the same zod schema on its way (the lookup's parse check, the route's serializer).
 */
export function toolOutput(schema: z.ZodType | undefined): ToolOutput {
  if (schema instanceof z.ZodObject) {
    // A fresh object of the same shape: the record's own id would make the JSON Schema a root `$ref`, and MCP
    // wants `type: object` at the root.
    return { schema: declared(z.object(schema.shape)), wrap: (answer) => answer as Record<string, unknown> };
  }
  if (schema === undefined || schema instanceof z.ZodNull) {
    // 204: the route said done; the tool says what was done to which id.
    return {
      schema: declared(z.object({ done: z.literal(true), id: z.string().optional() })),
      wrap: (_answer, args) => ({ done: true, ...(typeof args.id === 'string' ? { id: args.id } : {}) }),
    };
  }
  return { schema: declared(z.object({ results: schema })), wrap: (answer) => ({ results: answer }) };
}

/** An object schema that lists as `schema`'s JSON Schema (converted once) and checks only that it is an object. */
function declared(schema: z.ZodObject): z.ZodObject {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    io: 'output',
    target: 'draft-7',
    unrepresentable: 'any',
  });
  return z.looseObject({}).meta(json);
}

/** The route's success schema: its first 2xx response. */
export function successSchema(route: CatalogedRoute): z.ZodType | undefined {
  const status = Object.keys(route.response)
    .filter((s) => /^2\d\d$/.test(s))
    .sort()[0];
  return status === undefined ? undefined : route.response[status];
}
