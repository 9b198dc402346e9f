/**
 * LiveResult → ObservationBatch, through the operation's own extractor (`history` in its definition, beside it in its
 * marketplace's folder). Operations without one (the finder) record nothing. The registry is the app's, so a
 * marketplace added with `Registry.with` is recorded like a built-in one.
 */
import type { LiveResult } from '../../operations/live-results.js';
import { allOperations, BUILT_IN_REGISTRY, type Registry } from '../../operations/registry.js';
import type { OperationName } from '../../operations/types.js';
import type { ObservationBatch } from '../observation.js';

/** The observations of one live result, or null when the operation records nothing. */
export function extractObservations(
  result: LiveResult,
  registry: Registry = BUILT_IN_REGISTRY,
): ObservationBatch | null {
  const op = registry.operation(result.operation);
  return op?.history ? op.history(result) : null;
}

/** The operations whose lookups the history records (the history and track routes accept these), in registry order. */
export function recordedOperations(registry: Registry): string[] {
  return registry.operations.filter((op) => op.history).map((op) => op.name);
}

/** The built-in operations the history records. */
export const RECORDED_OPERATIONS: OperationName[] = allOperations()
  .filter((op) => op.history)
  .map((op) => op.name);
