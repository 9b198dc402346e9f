/**
 * What a server process spent in a window: CPU (user + system, from `process.cpuUsage`) and garbage collections by
 * kind (from `perf_hooks` gc entries). A child installs `watchProcessUsage()` once and answers `usage` messages with
 * `processUsage()`; the bench subtracts two readings.
 */
import { PerformanceObserver, constants, type PerformanceEntry } from 'node:perf_hooks';

export interface ProcessUsage {
  /** CPU time in µs, user + system. */
  cpu_us: number;
  /** Of which in the kernel (system), µs: socket writes and reads mostly. */
  system_us: number;
  /** Full (mark-compact) collections. */
  major_gcs: number;
  /** Scavenges and incremental marking steps. */
  minor_gcs: number;
  /** Time spent in full collections, ms. */
  major_gc_ms: number;
}

const gcs = { major: 0, minor: 0, majorMs: 0 };

export function watchProcessUsage(): void {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
        gcs.major++;
        gcs.majorMs += e.duration;
      } else gcs.minor++;
    }
  }).observe({ entryTypes: ['gc'] });
}

export function processUsage(): ProcessUsage {
  const cpu = process.cpuUsage();
  return {
    cpu_us: cpu.user + cpu.system,
    system_us: cpu.system,
    major_gcs: gcs.major,
    minor_gcs: gcs.minor,
    major_gc_ms: gcs.majorMs,
  };
}

export function usageBetween(a: ProcessUsage, b: ProcessUsage): ProcessUsage {
  return {
    cpu_us: b.cpu_us - a.cpu_us,
    system_us: b.system_us - a.system_us,
    major_gcs: b.major_gcs - a.major_gcs,
    minor_gcs: b.minor_gcs - a.minor_gcs,
    major_gc_ms: b.major_gc_ms - a.major_gc_ms,
  };
}
