/**
 * Figure 5 — memory: RSS of a fresh service process after 100 000 lookups with a full cache (see
 * bench/lib/memory-child.ts for the steps). Runs in its own process so nothing else the bench did counts.
 */
import { startChild } from './lib/child.js';

export interface MemoryResult {
  cache_max_bytes: number;
  answer_bytes: number;
  cache_capacity_entries: number;
  distinct_keys_filled: number;
  distinct_keys_total: number;
  lookups: number;
  statuses: Record<string, number>;
  x_cache: Record<string, number>;
  deadline_ms: number;
  fill_s: number;
  lookups_s: number;
  rss: Record<
    'at_start' | 'after_app_start' | 'after_fill' | 'after_lookups' | 'after_lookups_gc' | 'after_deadlines_gc',
    number
  >;
  heap_used: Record<'after_app_start' | 'after_fill' | 'after_lookups_gc' | 'after_deadlines_gc', number>;
}

export async function memoryFigure(): Promise<MemoryResult> {
  const { child, ready } = await startChild<MemoryResult & { type: string }>(
    new URL('./lib/memory-child.ts', import.meta.url),
  );
  await new Promise<void>((resolve) =>
    child.proc.exitCode !== null ? resolve() : child.proc.once('exit', () => resolve()),
  );
  const { type: _type, ...result } = ready;
  return result;
}
