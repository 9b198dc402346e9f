/** The one error shape (CONTRACT §3), asserted the same way by every HTTP suite. */
import { expect } from 'vitest';
import type { ParamIssue } from '../../src/errors.js';

export interface InjectedResponse {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
}

/** A problem document (CONTRACT §3) as the tests read it; routes add their own members (`param`, `retry_after`, …). */
export interface ProblemBody {
  [member: string]: unknown;
  type: string;
  title: string;
  status: number;
  code: string;
  error: string;
  detail: string;
  message: string;
  request_id: string;
  /**
   * One entry per bad parameter. Only validation problems carry it, never empty: typed as present because the tests that read it
   * assert such a problem first (an absent one fails there, as a TypeError).
   */
  errors: [ParamIssue, ...ParamIssue[]];
}

/** Asserts a problem+json answer with `status` and `code` (and no stack trace); returns the parsed body. */
export function expectProblem(res: InjectedResponse, status: number, code: string): ProblemBody {
  expect(res.statusCode, res.body).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(res.body) as ProblemBody;
  expect(body).toMatchObject({ status, code, error: code, type: `/docs/errors#${code}` });
  expect(body.detail).toBe(body.message);
  expect(typeof body.request_id).toBe('string');
  expect(res.body).not.toMatch(/at .*\.(ts|js):\d+/); // never a stack trace
  return body;
}
