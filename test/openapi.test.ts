/** /openapi.json is generated from the same zod schemas as validation: it must be a valid document listing everything. */
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { ERROR_CODES } from '../src/errors.js';
import { COLLECTIONS } from '../src/history/db-api/collections.js';
import { OPERATORS } from '../src/history/db-api/where.js';
import { aliasPath, allOperations } from '../src/operations/registry.js';
import { OPERATION_NAMES } from '../src/operations/types.js';
import type { PriceEntry } from '../src/marketplaces/resale-b/schema.js';
import { testApp } from './support/app.js';

/** A parameter of the document, as far as these tests read it. */
interface QueryParam {
  name: string;
  in: string;
  style?: string;
  schema: Schema;
}

/** A schema of the document, as far as these tests read it. */
interface Schema {
  $ref?: string;
  type?: string;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  example?: Record<string, unknown>;
  examples?: Array<Record<string, unknown>>;
}

/** An operation of the document, as far as these tests read it. */
interface Operation {
  summary?: string;
  operationId?: string;
  tags?: string[];
  security?: unknown;
  parameters?: QueryParam[];
  requestBody?: { required?: boolean };
  responses: Record<string, { content?: Record<string, { schema: Schema; example?: unknown }> }>;
}

/** The document: an object first (the validator takes any), then the parts these tests read. */
interface OpenApiDocument extends Record<string, unknown> {
  servers: unknown;
  info: { description: string };
  tags: Array<{ name: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, Schema> };
}

describe('/openapi.json', () => {
  let app: FastifyInstance;
  let doc: OpenApiDocument;
  beforeAll(async () => {
    app = await testApp();
    const res = await app.inject({ url: '/openapi.json', headers: { host: 'api.marketlens.test:8080' } });
    expect(res.statusCode).toBe(200);
    doc = res.json<OpenApiDocument>();
  });
  afterAll(() => app.close());

  /** The GET operation of `path`; a missing one fails the test naming it. */
  const getOf = (path: string): Operation => {
    const op = doc.paths[path]?.get;
    if (!op) throw new Error(`no GET ${path} in the document`);
    return op;
  };
  /** The component schema a `$ref` (or a bare name) points at; a missing one fails the test naming it. */
  const component = (ref: string | undefined): Schema => {
    const name = String(ref).split('/').pop()!;
    const schema = doc.components.schemas[name];
    if (!schema) throw new Error(`no component schema ${name}`);
    return schema;
  };

  it('is a valid OpenAPI document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('passes redocly lint (recommended rules) with no error and no warning', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: '/openapi.json', config });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });

  it("names the server: the request's scheme and host, or MARKETLENS_PUBLIC_URL", async () => {
    expect(doc.servers).toEqual([{ url: 'http://api.marketlens.test:8080' }]);
    const odd = await app.inject({ url: '/openapi.json', headers: { host: 'evil"host/<x>' } });
    expect(odd.json().servers).toEqual([{ url: '/' }]);
    const pub = await testApp({ MARKETLENS_PUBLIC_URL: 'https://api.example.org/marketlens/' });
    try {
      expect((await pub.inject({ url: '/openapi.json' })).json().servers).toEqual([
        { url: 'https://api.example.org/marketlens' },
      ]);
    } finally {
      await pub.close();
    }
  });

  it('documents every error as application/problem+json with the Problem schema', () => {
    let errors = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      const methods = Object.keys(item).filter((m) =>
        ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'].includes(m),
      );
      expect(methods.length, path).toBeGreaterThan(0);
      for (const method of methods) {
        for (const [status, response] of Object.entries(item[method]!.responses)) {
          if (Number(status) < 400) continue;
          errors++;
          const where = `${method.toUpperCase()} ${path} ${status}`;
          expect(Object.keys(response.content ?? {}), where).toEqual(['application/problem+json']);
          expect(JSON.stringify(response.content?.['application/problem+json']?.schema), where).toContain(
            '#/components/schemas/Problem',
          );
        }
      }
    }
    expect(errors).toBeGreaterThan(0);
  });

  it("marks the finder's JSON body optional (a generated client may send the query string alone)", () => {
    const finder = getOf('/api/v2/finder/watchmarket-search');
    expect(finder.requestBody?.required).toBe(false);
    expect(finder.parameters?.find((p) => p.name === 'query')).toBeDefined();
  });

  it('types enumerated parameters as enums', () => {
    const param = (path: string, name: string): Schema => {
      const found = getOf(path).parameters?.find((p) => p.name === name);
      if (!found) throw new Error(`no parameter ${name} on ${path}`);
      return found.schema;
    };
    expect(param('/api/v1/scraper/resale-b/prices', 'country').enum).toEqual(['US', 'UK', 'FR']);
    expect(param('/api/v1/scraper/watchmarket/search', 'sort_by').enum).toEqual([
      'relevance',
      'price_asc',
      'price_desc',
      'age_desc',
      'age_asc',
    ]);
    // Integers as integers (issue 29): page sizes are sent as numbers by generated clients.
    expect(param('/api/v1/scraper/watchmarket/search', 'page_size')).toEqual({ type: 'integer', enum: [30, 60, 120] });
    expect(param('/api/v1/scraper/watchmarket/search', 'pageSize')).toEqual({ type: 'integer', enum: [30, 60, 120] });
    expect(param('/api/v1/scraper/watchmarket/search', 'domain').enum).toContain('co.uk');
    expect(param('/api/v1/scraper/resale-a/trends', 'sort_by').enum).toEqual([
      'featured',
      'most_active',
      'release_date',
    ]);
    expect(param('/api/v1/scraper/resale-a/product', 'currency').enum).toContain('EUR');
    expect(param('/api/v1/scraper/resale-a/trends', 'country').enum).toEqual(
      expect.arrayContaining(['US', 'GB', 'UK', 'FR']),
    );
  });

  it('lists the 8 operations of the spec and the extensions under their neutral paths, with the API key scheme', () => {
    expect(allOperations().filter((op) => !op.beyondSpec)).toHaveLength(8);
    expect(
      allOperations()
        .filter((op) => op.beyondSpec)
        .map((op) => op.name),
    ).toEqual(['resale-a.trends', 'resale-b.search']);
    expect(OPERATION_NAMES).toHaveLength(allOperations().length);
    for (const op of allOperations()) {
      const entry = doc.paths[op.path]?.get;
      expect(entry, op.path).toBeDefined();
      expect(entry!.summary).toBe(op.summary);
      expect(entry!.security).toEqual([{ apiKey: [] }]);
    }
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-api-key' });
  });

  it('documents every alias path as its own operation (tagged as an alias, the same schemas) for generated clients', () => {
    expect(doc.tags.map((t) => t.name)).toContain('Retailed aliases');
    for (const op of allOperations()) {
      const neutral = getOf(op.path);
      const alias = doc.paths[aliasPath(op)]?.get;
      expect(alias, aliasPath(op)).toBeDefined();
      expect(alias!.tags).toEqual(['Retailed aliases']);
      expect(alias!.operationId).not.toBe(neutral.operationId);
      expect(alias!.security).toEqual(neutral.security);
      expect(alias!.parameters).toEqual(neutral.parameters);
      expect(alias!.responses).toEqual(neutral.responses);
      expect(alias!.requestBody).toEqual(neutral.requestBody);
    }
    expect(getOf('/api/v1/scraper/stockx/product').operationId).toBe('stockxProduct');
    expect(getOf('/api/v1/scraper/goat/prices').operationId).toBe('goatPrices');
    expect(getOf('/api/v2/finder/chrono24-search').operationId).toBe('chrono24Finder');
  });

  it('documents the db filter as deepObject parameters listing fields and operators; page and limit as integers', () => {
    for (const [collection, def] of Object.entries(COLLECTIONS)) {
      const entry = getOf(`/api/v1/db/${collection}`);
      const params = new Map<string, QueryParam>((entry.parameters ?? []).map((p) => [p.name, p]));
      expect([...params.keys()]).not.toContain('where[field][operator]');
      for (const [field, f] of Object.entries<{ type: string }>(def.fields)) {
        const where = params.get(`where[${field}]`);
        expect(where, `${collection} ${field}`).toMatchObject({ in: 'query', style: 'deepObject', explode: true });
        const schema = component(where?.schema.$ref);
        expect(schema.type).toBe('object');
        expect(Object.keys(schema.properties ?? {}).sort(), `${collection} ${field} (${f.type})`).toEqual(
          [...OPERATORS].sort(),
        );
      }
      expect(params.get('page')?.schema).toMatchObject({ type: 'integer', minimum: 1 });
      expect(params.get('limit')?.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    }
  });

  it('documents parameters, the record and every error status of each operation', () => {
    for (const op of allOperations()) {
      const entry = getOf(op.path);
      const names = (entry.parameters ?? []).map((p) => p.name);
      expect(names, op.name).toContain('max_age');
      for (const key of Object.keys(op.params.shape)) expect(names, `${op.name} ${key}`).toContain(key);
      expect(entry.responses['200'], op.name).toBeDefined();
      for (const status of ['400', '401', '404', '429', '502', '503', '504']) {
        expect(entry.responses[status], `${op.name} ${status}`).toBeDefined();
      }
    }
  });

  it('documents the problem shape with every error code and an example', () => {
    const problem = component('Problem');
    expect(problem.properties?.code?.enum?.sort()).toEqual(Object.keys(ERROR_CODES).sort());
    expect(problem.examples?.[0]?.code ?? problem.example?.code).toBe('invalid_parameter');
    for (const code of Object.keys(ERROR_CODES)) expect(doc.info.description).toContain(`\`${code}\``);
  });

  it('carries the example response of resale-b prices', () => {
    const json = getOf('/api/v1/scraper/resale-b/prices').responses['200']?.content?.['application/json'];
    expect(json).toBeDefined();
    const schema = json!.schema;
    expect(schema.type).toBe('array');
    const entry = component(schema.items?.$ref);
    expect((json!.example as PriceEntry[])[0]!.sizeOption).toEqual({ value: 10, presentation: '10' });
    expect(Object.keys(entry.properties ?? {})).toEqual(
      expect.arrayContaining(['sizeOption', 'stockStatus', 'instantShipLowestPriceCents']),
    );
    expect(entry.required).toEqual(expect.arrayContaining(['lastSoldPriceCents', 'lowestPriceCents']));
  });
});
