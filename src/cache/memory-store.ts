/** The default store: an in-process LRU bounded by the bytes of the answers it holds (MARKETLENS_CACHE_MAX_BYTES). */
import { LRUCache } from 'lru-cache';
import type { CachedAnswer, Store } from './store.js';

/** Rough fixed cost of one entry beyond its strings (object, LRU slots, timestamps). */
const ENTRY_OVERHEAD_BYTES = 200;

export class MemoryStore implements Store {
  readonly kind = 'memory' as const;
  private readonly lru: LRUCache<string, CachedAnswer>;

  /** @example new MemoryStore(256 * 1024 * 1024) */
  constructor(maxBytes: number) {
    this.lru = new LRUCache<string, CachedAnswer>({
      maxSize: maxBytes,
      // JS strings of ASCII JSON take about one byte per character; the key is stored too.
      sizeCalculation: (v, k) => v.json.length + k.length + ENTRY_OVERHEAD_BYTES,
      // Freshness is decided by the lookup from `fetchedAt`; the LRU's own TTL only drops entries past any use.
      ttlAutopurge: false,
    });
  }

  get(key: string): CachedAnswer | undefined {
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
