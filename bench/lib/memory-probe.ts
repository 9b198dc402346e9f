/**
 * Where a process's memory is, for the memory figures: V8's heap, the bytes of Buffers/ArrayBuffers (allocated
 * outside the heap), the anonymous and file-backed parts of RSS (smaps_rollup) and the thread count (each worker
 * thread is a V8 isolate of its own; native clients run threads too). Linux only for the /proc parts (0 elsewhere).
 */
import { readFileSync } from 'node:fs';

export interface MemorySnapshot {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  /** Buffers and ArrayBuffers: their backing stores live outside the V8 heap. */
  arrayBuffers: number;
  /** RSS backed by no file: heaps (V8's and malloc's), thread stacks. */
  anon: number;
  /** RSS backed by files: the node binary, shared libraries (impit's, better-sqlite3's), mapped code. */
  file: number;
  threads: number;
}

function procField(text: string, name: string): number {
  const m = new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

function readProc(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** A snapshot of this process (after a full GC when `collect` and --expose-gc). */
export function snapshot(collect = true): MemorySnapshot {
  if (collect) (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  const rollup = readProc('/proc/self/smaps_rollup');
  const anon = procField(rollup, 'Anonymous') * 1024;
  return {
    rss: m.rss,
    heapUsed: m.heapUsed,
    heapTotal: m.heapTotal,
    arrayBuffers: m.arrayBuffers,
    anon,
    file: rollup ? procField(rollup, 'Rss') * 1024 - anon : 0,
    threads: procField(readProc('/proc/self/status'), 'Threads'),
  };
}

/** Samples RSS every `everyMs` until stopped; `stop()` gives the highest value seen. */
export function sampleRssPeak(everyMs = 20): { stop(): number } {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage.rss());
    },
  };
}
