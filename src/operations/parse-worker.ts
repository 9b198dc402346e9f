/**
 * Runs in a parse-pool worker thread: one operation's parse and record check, off the main event loop. A failure
 * travels back as plain data (a MarketlensError does not survive the thread boundary as itself).
 */
import { MarketlensError } from '../errors.js';
import { parseChecked } from './parse-checked.js';
import { getOperation } from './registry.js';
import type { Parsed } from './types.js';

export interface ParseTask {
  operation: string;
  bodies: unknown;
  params: Record<string, unknown>;
}

export type ParseOutcome =
  | { ok: true; parsed: Parsed<unknown> }
  | {
      ok: false;
      code: MarketlensError['code'];
      message: string;
      retryAfter?: number;
      upstreamStatus?: number;
      logContext?: Record<string, unknown>;
    };

export default function parseTask(task: ParseTask): ParseOutcome {
  const op = getOperation(task.operation);
  if (!op) return { ok: false, code: 'internal', message: `parse worker: unknown operation ${task.operation}` };
  try {
    return { ok: true, parsed: parseChecked(op, task.bodies, task.params) };
  } catch (e) {
    if (e instanceof MarketlensError) {
      return {
        ok: false,
        code: e.code,
        message: e.message,
        retryAfter: e.retryAfter,
        upstreamStatus: e.upstreamStatus,
        logContext: e.logContext,
      };
    }
    return { ok: false, code: 'internal', message: `parse worker: ${(e as Error)?.message ?? String(e)}` };
  }
}
