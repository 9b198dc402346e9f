/** The default store: an in-process LRU bounded by the bytes of the answers it holds (MARKETLENS_CACHE_MAX_BYTES). */
import { LRUCache } from 'lru-cache';
import type { CachedAnswer, Store } from './store.js';

/**
 * What one entry costs beyond its answer's bytes and its key's characters, measured (bench/README.md, "What an entry
 * costs"): ~450 B of V8 heap (the Buffer and its ArrayBuffer, the CachedAnswer, its lastModified string and
 * missingParts array, the key's string header, the LRU's map and list slots) and ~450 B native (the backing store's
 * record and malloc's chunk header: each answer has an allocation of its own). With it, the bound is real memory.
 */
export const ENTRY_OVERHEAD_BYTES = 900;

export class MemoryStore implements Store {
  readonly kind = 'memory' as const;
  private readonly lru: LRUCache<string, CachedAnswer>;

  /** @example new MemoryStore(256 * 1024 * 1024) */
  constructor(maxBytes: number) {
    this.lru = new LRUCache<string, CachedAnswer>({
      maxSize: maxBytes,
      // The answer's UTF-8 bytes, the key (one byte per character: ASCII) and the fixed per-entry cost.
      sizeCalculation: (v, k) => v.body.length + k.length + ENTRY_OVERHEAD_BYTES,
      // Freshness is decided by the lookup from `fetchedAt`; the LRU's own TTL only drops entries past any use.
      ttlAutopurge: false,
    });
  }

  get(key: string): CachedAnswer | undefined {
    return this.lru.get(key);
  }

  peek(key: string): CachedAnswer | undefined {
    return this.lru.get(key);
  }

  set(key: string, answer: CachedAnswer, retainSeconds: number): void {
    if (retainSeconds <= 0) return;
    this.lru.set(key, answer, { ttl: retainSeconds * 1000 });
  }

  /** Bytes currently accounted (for tests and metrics). */
  get sizeBytes(): number {
    return this.lru.calculatedSize;
  }
}
