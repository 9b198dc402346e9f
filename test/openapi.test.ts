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
import { testApp } from './support/app.js';

/** A parameter of the document, as far as these tests read it. */
interface QueryParam {
  name: string;
  in: string;
  style?: string;
  schema: { $ref?: string; type?: string };
}

describe('/openapi.json', () => {
  let app: FastifyInstance;
  let doc: any;
  beforeAll(async () => {
    app = await testApp();
    const res = await app.inject({ url: '/openapi.json', headers: { host: 'api.marketlens.test:8080' } });
    expect(res.statusCode).toBe(200);
    doc = res.json();
  });
  afterAll(() => app.close());

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
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      const methods = Object.keys(item).filter((m) =>
        ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'].includes(m),
      );
      expect(methods.length, path).toBeGreaterThan(0);
      for (const method of methods) {
        for (const [status, response] of Object.entries<any>(item[method].responses)) {
          if (Number(status) < 400) continue;
          errors++;
          const where = `${method.toUpperCase()} ${path} ${status}`;
          expect(Object.keys(response.content ?? {}), where).toEqual(['application/problem+json']);
          expect(JSON.stringify(response.content['application/problem+json'].schema), where).toContain(
            '#/components/schemas/Problem',
          );
        }
      }
    }
    expect(errors).toBeGreaterThan(0);
  });

  it("marks the finder's JSON body optional (a generated client may send the query string alone)", () => {
    const finder = doc.paths['/api/v2/finder/watchmarket-search'].get;
    expect(finder.requestBody.required).toBe(false);
    expect(finder.parameters.find((p: { name: string }) => p.name === 'query')).toBeDefined();
  });

  it('types enumerated parameters as enums', () => {
    const param = (path: string, name: string) =>
      doc.paths[path].get.parameters.find((p: { name: string }) => p.name === name).schema;
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
      expect(entry.summary).toBe(op.summary);
      expect(entry.security).toEqual([{ apiKey: [] }]);
    }
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-api-key' });
  });

  it('documents every alias path as its own operation (tagged as an alias, the same schemas) for generated clients', () => {
    expect(doc.tags.map((t: { name: string }) => t.name)).toContain('Retailed aliases');
    for (const op of allOperations()) {
      const neutral = doc.paths[op.path].get;
      const alias = doc.paths[aliasPath(op)]?.get;
      expect(alias, aliasPath(op)).toBeDefined();
      expect(alias.tags).toEqual(['Retailed aliases']);
      expect(alias.operationId).not.toBe(neutral.operationId);
      expect(alias.security).toEqual(neutral.security);
      expect(alias.parameters).toEqual(neutral.parameters);
      expect(alias.responses).toEqual(neutral.responses);
      expect(alias.requestBody).toEqual(neutral.requestBody);
    }
    expect(doc.paths['/api/v1/scraper/stockx/product'].get.operationId).toBe('stockxProduct');
    expect(doc.paths['/api/v1/scraper/goat/prices'].get.operationId).toBe('goatPrices');
    expect(doc.paths['/api/v2/finder/chrono24-search'].get.operationId).toBe('chrono24Finder');
  });

  it('documents the db filter as deepObject parameters listing fields and operators; page and limit as integers', () => {
    for (const [collection, def] of Object.entries(COLLECTIONS)) {
      const entry = doc.paths[`/api/v1/db/${collection}`].get;
      const params = new Map<string, QueryParam>(entry.parameters.map((p: QueryParam) => [p.name, p]));
      expect([...params.keys()]).not.toContain('where[field][operator]');
      for (const [field, f] of Object.entries<{ type: string }>(def.fields)) {
        const where = params.get(`where[${field}]`);
        expect(where, `${collection} ${field}`).toMatchObject({ in: 'query', style: 'deepObject', explode: true });
        const schema = doc.components.schemas[String(where?.schema.$ref).split('/').pop()!];
        expect(schema.type).toBe('object');
        expect(Object.keys(schema.properties).sort(), `${collection} ${field} (${f.type})`).toEqual(
          [...OPERATORS].sort(),
        );
      }
      expect(params.get('page')?.schema).toMatchObject({ type: 'integer', minimum: 1 });
      expect(params.get('limit')?.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    }
  });

  it('documents parameters, the record and every error status of each operation', () => {
    for (const op of allOperations()) {
      const entry = doc.paths[op.path].get;
      const names = (entry.parameters ?? []).map((p: { name: string }) => p.name);
      expect(names, op.name).toContain('max_age');
      for (const key of Object.keys(op.params.shape)) expect(names, `${op.name} ${key}`).toContain(key);
      expect(entry.responses['200'], op.name).toBeDefined();
      for (const status of ['400', '401', '404', '429', '502', '503', '504']) {
        expect(entry.responses[status], `${op.name} ${status}`).toBeDefined();
      }
    }
  });

  it('documents the problem shape with every error code and an example', () => {
    const problem = doc.components.schemas.Problem;
    expect(problem.properties.code.enum.sort()).toEqual(Object.keys(ERROR_CODES).sort());
    expect(problem.examples?.[0]?.code ?? problem.example?.code).toBe('invalid_parameter');
    for (const code of Object.keys(ERROR_CODES)) expect(doc.info.description).toContain(`\`${code}\``);
  });

  it('carries the example response of resale-b prices', () => {
    const ok = doc.paths['/api/v1/scraper/resale-b/prices'].get.responses['200'];
    const schema = ok.content['application/json'].schema;
    expect(schema.type).toBe('array');
    const entry = doc.components.schemas[schema.items.$ref.split('/').pop()];
    expect(ok.content['application/json'].example[0].sizeOption).toEqual({ value: 10, presentation: '10' });
    expect(Object.keys(entry.properties)).toEqual(
      expect.arrayContaining(['sizeOption', 'stockStatus', 'instantShipLowestPriceCents']),
    );
    expect(entry.required).toEqual(expect.arrayContaining(['lastSoldPriceCents', 'lowestPriceCents']));
  });
});
