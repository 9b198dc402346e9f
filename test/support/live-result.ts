/**
 * A `LiveResult` as the lookup service emits it, built from saved upstream files through the operation's own
 * `bodiesFromFiles` → `parse` → record check (the `marketlens parse` path), for tests of what observes lookups.
 */
import type { LiveResult, LookupIdentity } from '../../src/operations/live-results.js';
import { parseAndCheck } from '../../src/operations/lookup.js';
import { OPERATIONS } from '../../src/operations/registry.js';
import type { OperationName } from '../../src/operations/types.js';
import { readCapture } from './shared.js';
import { readFixture } from './fixtures.js';

export function liveResultFrom(
  operation: OperationName,
  files: Array<{ capture: string } | { fixture: string }>,
  opts: { params?: Record<string, unknown>; identity: Partial<LookupIdentity> & { id: string }; fetchedAt?: number },
): LiveResult {
  const op = OPERATIONS[operation];
  const saved = files.map((f) =>
    'capture' in f
      ? { path: f.capture, text: readCapture(f.capture) }
      : { path: f.fixture, text: readFixture(`${f.fixture}`) },
  );
  const params = opts.params ?? {};
  const record = parseAndCheck(op, op.bodiesFromFiles(saved, params as never), params);
  return {
    operation,
    params,
    identity: { marketplace: op.marketplace, operation, country: null, currency: null, locale: null, ...opts.identity },
    record,
    missing: [],
    fetchedAt: opts.fetchedAt ?? Date.UTC(2026, 10, 24, 12),
  };
}
