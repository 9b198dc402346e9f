import { describe, expect, it } from 'vitest';
import { storableRow, storableText } from './storable-text.js';

describe('storableText', () => {
  it('removes NULs and lone surrogates, keeps paired surrogates (emoji) and everything else', () => {
    expect(storableText('Runner\u0000 Five')).toBe('Runner Five');
    expect(storableText('a\ud800b')).toBe('ab'); // high surrogate alone
    expect(storableText('a\udfffb')).toBe('ab'); // low surrogate alone
    expect(storableText('end\ud83d')).toBe('end'); // cut in the middle of a pair
    expect(storableText('\udc00\ud800')).toBe(''); // reversed pair: both alone
    expect(storableText('👟 size 10½ — café')).toBe('👟 size 10½ — café');
    expect(storableText('tab\tnew\nline\u0001')).toBe('tab\tnew\nline\u0001');
  });

  it('returns the same string when there is nothing to remove', () => {
    const s = 'Air Jordan 1 Retro High OG';
    expect(storableText(s)).toBe(s);
  });
});

describe('storableRow', () => {
  it('cleans string values only, and returns the same row when clean', () => {
    const clean = { id: 'x', name: 'ok', price: 1, at: null };
    expect(storableRow(clean)).toBe(clean);
    expect(storableRow({ id: 'x\u0000', name: 'o\ud800k', price: 1, at: null })).toEqual({
      id: 'x',
      name: 'ok',
      price: 1,
      at: null,
    });
  });
});
