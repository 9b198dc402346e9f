/**
 * Issue 21: the in-process cache accounts for what its entries really cost, so MARKETLENS_CACHE_MAX_BYTES bounds real
 * memory. An entry is its answer's bytes plus, per entry, the Buffer and its ArrayBuffer, the CachedAnswer object,
 * its lastModified string and missingParts array, the key string and the LRU's slots (measured in bench/README.md).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../src/cache/memory-store.js';
import { toCachedAnswer, utf8Bytes } from '../src/cache/store.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** V8 heap plus Buffer backing stores, after full GCs. */
function used(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

describe('MemoryStore accounting', () => {
  it.each([
    ['small answers (300 B)', 300],
    ['GOAT-price-sized answers (3 KB)', 3_000],
    ['finder-sized answers (47 KB)', 47_000],
  ])('real memory of a full store stays within its bound: %s', (_label, answerBytes) => {
    const budget = 16 * 1024 * 1024;
    const text = 'x'.repeat(answerBytes);
    // Held in an array, so it can be let go of below.
    const held = [new MemoryStore(budget)];
    // Twice what fits: the store is full and has evicted.
    const n = Math.ceil((2 * budget) / answerBytes);
    for (let i = 0; i < n; i++) {
      held[0]!.set(
        `resale-b.prices?country=US&query=${1_000_000 + i}`,
        toCachedAnswer(utf8Bytes(text), Date.now(), []),
        60,
      );
    }
    expect(held[0]!.sizeBytes).toBeLessThanOrEqual(budget);
    // What the full store holds: memory with it minus memory right after letting it go. Measured at the end, back
    // to back, so garbage an earlier test file left in this worker process (freed at some point during the fill)
    // cannot count against it (CI saw 1.4 MB "grown" for a full 16 MB store, measured from before the fill).
    const full = used();
    held.length = 0;
    const grown = full - used();
    // Heap + backing stores are what JS can see; the rest of an entry's cost (the backing store's native record and
    // malloc's header) is accounted too, so the visible part stays below the bound.
    expect(grown).toBeLessThanOrEqual(budget * 1.02);
    // …and the accounting is not so generous that the store holds much less than its bound (the invisible ~450 B per
    // entry is a third of a 300 B answer's entry).
    expect(grown).toBeGreaterThanOrEqual(budget * 0.6);
  });
});
