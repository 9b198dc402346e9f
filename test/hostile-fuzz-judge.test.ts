/**
 * The hostile-input fuzz's property (test/support/hostile-fuzz.ts) rejects what it must. The fuzz itself, 20 000
 * requests per engine, runs in `npm run test:long`; this check of its judge stays in `npm test`.
 */
import { describe, expect, it } from 'vitest';
import { judge, type Answer, type Sent } from './support/hostile-fuzz.js';

describe('the fuzz property', () => {
  const sent: Sent = { method: 'GET', path: '/api/v1/db/products', query: [], required: [] };
  const problem = (status: number, errors?: unknown, code = 'invalid_parameter'): Answer => ({
    status,
    type: 'application/problem+json',
    body: JSON.stringify({ status, code, errors }),
  });
  it('rejects a 5xx, an unnamed or unsent parameter, a 4xx without problem+json; accepts a named sent key', () => {
    const qs = 'where%5Bor%5D%5B0%5D%5Bsize%5D%5Bequals%5D=x';
    expect(judge(sent, qs, problem(500, undefined, 'internal'))).toBeDefined();
    expect(judge(sent, qs, problem(400, []))).toBeDefined();
    expect(judge(sent, qs, problem(400, [{ param: 'sort' }]))).toBeDefined();
    expect(judge(sent, qs, problem(400, [{ param: 'where[or][0][size][equals][x]' }]))).toBeDefined();
    expect(judge(sent, qs, { status: 400, type: 'application/json', body: '{}' })).toBeDefined();
    expect(judge(sent, qs, problem(404, undefined, 'internal'))).toBeDefined();
    expect(judge(sent, qs, problem(400, [{ param: 'where[or][0][size]' }]))).toBeUndefined();
    expect(judge(sent, qs, problem(400, [{ param: 'where[or][0][size][equals]' }]))).toBeUndefined();
    expect(judge(sent, qs, problem(404, undefined, 'route_not_found'))).toBeUndefined();
    expect(judge(sent, qs, { status: 200, type: 'application/json', body: '{}' })).toBeUndefined();
  });
});
