import { at } from '../../util/json-path.js';
import { describe, expect, it } from 'vitest';
import { MarketlensError } from '../../errors.js';
import { graphqlData } from './graphql-response.js';

function codeOf(body: string, key = 'product'): string | undefined {
  try {
    graphqlData(body, key, 'Op');
  } catch (e) {
    return (e as MarketlensError).code;
  }
  return undefined;
}

const err = (message: string, code?: string) =>
  JSON.stringify({ errors: [{ message, extensions: code ? { code } : {} }] });

describe('graphqlData', () => {
  it('returns data with the key, also from data-only saves and with partial errors', () => {
    expect(at(graphqlData('{"data":{"product":{"id":"a"}}}', 'product', 'Op'), 'product', 'id')).toBe('a');
    expect(at(graphqlData('{"product":{"id":"b"}}', 'product', 'Op'), 'product', 'id')).toBe('b');
    const partial = JSON.stringify({ data: { product: { id: 'c' } }, errors: [{ message: 'statistics failed' }] });
    expect(at(graphqlData(partial, 'product', 'Op'), 'product', 'id')).toBe('c');
  });

  it('maps errors to the contract codes', () => {
    expect(codeOf(err('Product not found', 'NOT_FOUND'))).toBe('not_found');
    expect(codeOf('{"data":{"product":null}}')).toBe('not_found');
    expect(codeOf(err('Cannot query field "x" on type "Product".', 'GRAPHQL_VALIDATION_FAILED'))).toBe(
      'upstream_changed',
    );
    expect(codeOf(err('Variable "$currencyCode" got invalid value "XXX"', 'BAD_USER_INPUT'))).toBe('upstream_changed');
    expect(codeOf(err('Syntax Error: Unexpected Name', 'GRAPHQL_PARSE_FAILED'))).toBe('upstream_changed');
    expect(codeOf(err('Forbidden', 'FORBIDDEN'))).toBe('upstream_blocked');
    expect(codeOf(err('Something broke', 'INTERNAL_SERVER_ERROR'))).toBe('upstream_error');
    expect(codeOf('{"data":{"browse":null}}', 'browse')).toBe('upstream_changed');
    expect(codeOf('{}')).toBe('upstream_changed');
    expect(codeOf('[]')).toBe('upstream_changed');
    expect(codeOf('<html>')).toBe('upstream_changed');
    expect(codeOf('{"appId":"PX16uD0kOF","blockScript":"/b.js"}')).toBe('upstream_blocked');
  });
});
