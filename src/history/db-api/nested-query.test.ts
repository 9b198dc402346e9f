import { describe, expect, it } from 'vitest';
import { MarketlensError } from '../../errors.js';
import { parseNestedQuery } from './nested-query.js';

function refusal(raw: string): string[] | undefined {
  try {
    parseNestedQuery(raw);
    return undefined;
  } catch (e) {
    if (!(e instanceof MarketlensError)) throw e;
    return e.errors?.map((i) => i.param);
  }
}

describe('parseNestedQuery', () => {
  it('nests bracket keys into objects without a prototype; repeats become lists', () => {
    const q = parseNestedQuery('where[or][0][size][equals]=10&where[or][1][size][in][]=11&where[or][1][size][in][]=12');
    expect(Object.getPrototypeOf(q)).toBeNull();
    const where = q.where as Record<string, unknown>;
    expect(Object.getPrototypeOf(where)).toBeNull();
    expect(JSON.parse(JSON.stringify(q))).toEqual({
      where: { or: { 0: { size: { equals: '10' } }, 1: { size: { in: ['11', '12'] } } } },
    });
    expect(parseNestedQuery('sort=a&sort=b').sort).toEqual(['a', 'b']);
  });

  it('decodes as the router does: a broken escape stays as sent, + is a space', () => {
    expect(parseNestedQuery('where[name][equals]=%E0%A4%A+x').where).toEqual({ name: { equals: '%E0%A4%A x' } });
  });

  it.each([
    'where[__proto__][equals]=x',
    'where[or][0][__proto__][equals]=x',
    'where[name][__proto__][x]=x',
    'format[__proto__][x]=x',
    '__proto__[x]=x',
    'where[constructor][prototype][x]=1',
    'prototype=1',
  ])('%s → 400 naming the key; Object.prototype untouched', (raw) => {
    const key = decodeURIComponent(raw.split('=')[0]!);
    expect(refusal(raw)).toEqual([key]);
    expect(({} as Record<string, unknown>).equals).toBeUndefined();
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('still refuses malformed, too deep and conflicting keys', () => {
    expect(refusal('where[a=1')).toEqual(['where[a']);
    expect(refusal(`w${'[a]'.repeat(9)}=1`)).toEqual([`w${'[a]'.repeat(9)}`]);
    expect(refusal('where=1&where[a]=2')).toEqual(['where[a]']);
  });
});
