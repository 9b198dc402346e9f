/** /openapi.json is generated from the same zod schemas as validation: it must be a valid document listing everything. */
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { ERROR_CODES } from '../src/errors.js';
import { allOperations } from '../src/operations/registry.js';
import { OPERATION_NAMES } from '../src/operations/types.js';
import { testApp } from './support/app.js';

describe('/openapi.json', () => {
  let app: FastifyInstance;
  let doc: any;
  beforeAll(async () => {
    app = await testApp();
    const res = await app.inject({ url: '/openapi.json' });
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

  it('lists all 8 operations under their neutral paths, with the API key scheme', () => {
    expect(OPERATION_NAMES).toHaveLength(8);
    for (const op of allOperations()) {
      const entry = doc.paths[op.path]?.get;
      expect(entry, op.path).toBeDefined();
      expect(entry.summary).toBe(op.summary);
      expect(entry.security).toEqual([{ apiKey: [] }]);
    }
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-api-key' });
    // Alias paths are served but not documented twice.
    expect(doc.paths['/api/v1/scraper/goat/prices']).toBeUndefined();
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
    expect(Object.keys(entry.properties)).toEqual(expect.arrayContaining(['sizeOption', 'stockStatus', 'instantShipLowestPriceCents']));
    expect(entry.required).toEqual(expect.arrayContaining(['lastSoldPriceCents', 'lowestPriceCents']));
  });
});
