import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MarketlensError } from '../errors.js';
import { checkRequestPart, guardedValidatorCompiler, unstorableReason } from './request-input-guard.js';

const param = (e: MarketlensError | undefined) => e?.errors?.map((i) => i.param);

describe('request input guard', () => {
  it('refuses NUL and lone surrogates, keeps every other character (pairs, controls, noncharacters)', () => {
    expect(unstorableReason('a\u0000b')).toMatch(/NUL/);
    expect(unstorableReason('\ud800')).toMatch(/surrogate/);
    expect(unstorableReason('x\udfff')).toMatch(/surrogate/);
    expect(unstorableReason('\ud83d\ude00')).toBeUndefined();
    expect(unstorableReason('\u0001\u001f\u007f\ufffe\uffff\u2028')).toBeUndefined();
    expect(unstorableReason('')).toBeUndefined();
  });

  it('names the query or path parameter whose key or value is refused', () => {
    expect(param(checkRequestPart('querystring', { a: 'ok', 'where[x][equals]': 'a\u0000' }))).toEqual([
      'where[x][equals]',
    ]);
    expect(param(checkRequestPart('querystring', { size: ['1', '\u0000'] }))).toEqual(['size']);
    expect(param(checkRequestPart('params', { id: 'a\u0000b' }))).toEqual(['id']);
    for (const key of ['__proto__', 'constructor', 'prototype', 'a[__proto__]', 'a[b][constructor]', 'a.prototype'])
      expect(param(checkRequestPart('querystring', { [key]: 'x' })), key).toEqual([key]);
    // Similar names are parameters like any other.
    expect(checkRequestPart('querystring', { proto: 'x', constructors: 'y', 'a[__proto]': 'z' })).toBeUndefined();
  });

  it('names a JSON body by its top-level key, at any depth; `body` when it is no object', () => {
    expect(param(checkRequestPart('body', { filter: { products: ['ok', 'x\u0000'] } }))).toEqual(['filter']);
    expect(param(checkRequestPart('body', { filter: { nested: { constructor: 1 } } }))).toEqual(['filter']);
    expect(param(checkRequestPart('body', JSON.parse('{"description":"\\ud800"}')))).toEqual(['description']);
    expect(param(checkRequestPart('body', 'a\u0000'))).toEqual(['body']);
    expect(param(checkRequestPart('body', [{ a: '\u0000' }]))).toEqual(['body']);
    expect(checkRequestPart('body', { url: 'https://x', n: 1, ok: true, none: null, list: [] })).toBeUndefined();
  });

  it('walks a 64 KiB body nested 30 000 levels deep without running out of stack', () => {
    const deep = JSON.parse(`${'['.repeat(30_000)}"\\u0000"${']'.repeat(30_000)}`) as unknown;
    expect(param(checkRequestPart('body', { q: deep }))).toEqual(['q']);
    expect(checkRequestPart('body', { q: JSON.parse(`${'['.repeat(30_000)}${']'.repeat(30_000)}`) })).toBeUndefined();
  });

  it('runs before the schema, which then validates what passed', () => {
    const validate = guardedValidatorCompiler({
      schema: z.object({ q: z.string().max(3) }),
      method: 'GET',
      url: '/x',
      httpPart: 'querystring',
    }) as (data: unknown) => { error?: unknown; value?: unknown };
    const refused = validate({ q: 'a\u0000' }).error;
    expect(refused).toBeInstanceOf(MarketlensError);
    expect(param(refused as MarketlensError)).toEqual(['q']);
    expect(validate({ q: 'abcd' }).error).toBeDefined();
    expect(validate({ q: 'abc' })).toEqual({ value: { q: 'abc' } });
  });
});
