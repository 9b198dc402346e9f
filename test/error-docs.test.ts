// GET /docs/errors: every problem `type` (`/docs/errors#<code>`) resolves to an anchor on a public HTML page, next to
// (not inside) Swagger UI.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/errors.js';
import { testApp } from './support/app.js';
import { expectProblem } from './support/problem.js';

describe('/docs/errors', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await testApp();
  });
  afterAll(() => app.close());

  it('answers 200 text/html without a key, with an anchor, status and title for every code', async () => {
    const res = await app.inject({ url: '/docs/errors' });
    expect(res.statusCode).toBe(200);
    expect(String(res.headers['content-type'])).toMatch(/^text\/html/);
    for (const [code, { status, title }] of Object.entries(ERROR_CODES)) {
      const section = new RegExp(`<section id="${code}">[\\s\\S]*?</section>`).exec(res.body)?.[0];
      expect(section, code).toBeDefined();
      expect(section).toContain(`HTTP ${status}`);
      expect(section).toContain(title.replace(/'/g, '&#39;'));
      expect(section).toContain('What to do:');
    }
  });

  it("the problem document's type points at an anchor that page has", async () => {
    const problem = expectProblem(await app.inject({ url: '/api/v1/no-such-route' }), 404, 'route_not_found');
    const [path, anchor] = problem.type.split('#');
    const page = await app.inject({ url: path! });
    expect(page.body).toContain(`id="${anchor}"`);
  });

  it('Swagger UI still answers under /docs, and /docs/errors is not in the OpenAPI document', async () => {
    const ui = await app.inject({ url: '/docs' });
    expect([200, 302]).toContain(ui.statusCode);
    const doc = (await app.inject({ url: '/openapi.json' })).json<{ paths: Record<string, unknown> }>();
    expect(Object.keys(doc.paths)).not.toContain('/docs/errors');
  });

  it('another method on the page is 405, not 404', async () => {
    expectProblem(await app.inject({ method: 'POST', url: '/docs/errors' }), 405, 'method_not_allowed');
  });
});
