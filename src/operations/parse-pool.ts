/**
 * A bounded pool of worker threads (piscina) for parsing big upstream pages: an 18 MB results page takes hundreds of
 * milliseconds of synchronous parsing, which on the main thread stalls every other request (/healthz, cache hits).
 * Bodies below the threshold are parsed inline, where a thread hop would cost more than it saves.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Piscina } from 'piscina';
import { MarketlensError } from '../errors.js';
import type { ParseOutcome, ParseTask } from './parse-worker.js';
import type { Parsed } from './types.js';

export interface ParsePoolOptions {
  /** Worker threads at most. */
  threads: number;
  /** Total body size (characters) from which a parse goes to a worker. */
  thresholdBytes: number;
}

/** The worker file beside this one: compiled .js in a build; .ts under tsx or vitest (then loaded through tsx). */
function workerFile(): { filename: string; execArgv: string[] } {
  const js = fileURLToPath(new URL('./parse-worker.js', import.meta.url));
  if (existsSync(js)) return { filename: js, execArgv: [] };
  // tsx's loader by absolute path: the process may run from any directory (the binary tests run in a temp dir).
  const tsxDir = dirname(createRequire(import.meta.url).resolve('tsx/package.json'));
  const loader = pathToFileURL(join(tsxDir, 'dist/loader.mjs')).href;
  return { filename: fileURLToPath(new URL('./parse-worker.ts', import.meta.url)), execArgv: ['--import', loader] };
}

export class ParsePool {
  private readonly pool: Piscina<ParseTask, ParseOutcome>;

  /** @example new ParsePool({ threads: 2, thresholdBytes: 1_000_000 }) */
  constructor(private readonly options: ParsePoolOptions) {
    const { filename, execArgv } = workerFile();
    this.pool = new Piscina({
      filename,
      execArgv,
      minThreads: 0,
      maxThreads: options.threads,
      idleTimeout: 30_000,
      // Bounded: past this many waiting parses, callers are told to come back (503 overloaded).
      maxQueue: options.threads * 16,
    });
  }

  /** Whether these bodies are big enough to parse off the main thread. */
  wants(bodies: unknown): boolean {
    return sizeOf(bodies, 0) >= this.options.thresholdBytes;
  }

  /** The record and its missing parts, parsed and checked in a worker; failures come back as the same MarketlensError. */
  async parse(operation: string, bodies: unknown, params: Record<string, unknown>): Promise<Parsed<unknown>> {
    let out: ParseOutcome;
    try {
      out = await this.pool.run({ operation, bodies, params });
    } catch (e) {
      if (/queue is at limit/i.test((e as Error)?.message ?? '')) {
        throw new MarketlensError('overloaded', 'Too many big upstream pages are being parsed; retry shortly', {
          retryAfter: 1,
        });
      }
      throw e;
    }
    if (out.ok) return out.parsed;
    throw new MarketlensError(out.code, out.message, {
      retryAfter: out.retryAfter,
      upstreamStatus: out.upstreamStatus,
      logContext: out.logContext,
    });
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}

/** Characters of text in the bodies (strings, arrays and plain objects, a few levels deep). */
function sizeOf(v: unknown, depth: number): number {
  if (typeof v === 'string') return v.length;
  if (depth > 3 || v === null || typeof v !== 'object') return 0;
  const values = Array.isArray(v) ? v : Object.values(v);
  return values.reduce<number>((n, x) => n + sizeOf(x, depth + 1), 0);
}
