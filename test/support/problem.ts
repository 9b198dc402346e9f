/** The one error shape (CONTRACT §3), asserted the same way by every HTTP suite. */
import { expect } from 'vitest';

export interface InjectedResponse {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
}

/** Asserts a problem+json answer with `status` and `code` (and no stack trace); returns the parsed body. */
export function expectProblem(res: InjectedResponse, status: number, code: string): any {
  expect(res.statusCode, res.body).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(res.body);
  expect(body).toMatchObject({ status, code, error: code, type: `/docs/errors#${code}` });
  expect(body.detail).toBe(body.message);
  expect(typeof body.request_id).toBe('string');
  expect(res.body).not.toMatch(/at .*\.(ts|js):\d+/); // never a stack trace
  return body;
}
