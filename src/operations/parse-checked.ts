/** The parse step of a lookup, shared by the lookup service and the parse workers (which must not import the service). */
import { MarketlensError, upstreamChanged } from '../errors.js';
import type { AnyOperation, Parsed } from './types.js';

/**
 * Parses bodies and checks the record against the operation's spec schema: a parser that produced a wrong shape
 * means upstream changed under it, never a 500 and never a silently wrong record.
 */
export function parseChecked(op: AnyOperation, bodies: unknown, params: Record<string, unknown>): Parsed<unknown> {
  let parsed: Parsed<unknown>;
  try {
    parsed = op.parse(bodies, params);
  } catch (e) {
    if (e instanceof MarketlensError) throw e;
    // A parser tripping over an unexpected shape (TypeError on a missing node, bad JSON) is a format change.
    throw upstreamChanged(op.marketplace, `${op.name} parser failed: ${(e as Error).message}`);
  }
  const checked = op.record.safeParse(parsed.record);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw upstreamChanged(
      op.marketplace,
      `${op.name} record does not match the spec at ${issue?.path.join('.') || '(root)'}: ${issue?.message}`,
    );
  }
  return parsed;
}

/** `parseChecked`'s record alone (`marketlens parse`, parser tests). */
export function parseAndCheck(op: AnyOperation, bodies: unknown, params: Record<string, unknown>): unknown {
  return parseChecked(op, bodies, params).record;
}
