/** The history route's query: its own parameters split from the lookup's, both validated. */
import { cacheKey } from '../cache/cache-key.js';
import { invalidParam } from '../errors.js';
import { BUILT_IN_REGISTRY, type Registry } from '../operations/registry.js';
import { zodToInvalidParameter } from '../param-errors.js';
import { recordedOperations } from './extract/index.js';
import { seriesParams, singleValued } from './series-params.js';

const HISTORY_KEYS = ['operation', 'size', 'kind', 'from', 'to', 'interval', 'format', 'max_age'] as const;

/** Splits the history route's own parameters from the lookup's, validates both; the lookup's go through its schema. */
export function historyParams(query: Record<string, unknown>, registry: Registry = BUILT_IN_REGISTRY) {
  const str = singleValued(query);
  const opName = str('operation');
  const recorded = recordedOperations(registry);
  if (!opName) throw invalidParam('operation', `is required: one of ${recorded.join(', ')}`);
  const op = registry.operation(opName);
  if (!op || !recorded.includes(op.name)) throw invalidParam('operation', `must be one of ${recorded.join(', ')}`);
  const lookupParams = Object.fromEntries(
    Object.entries(query).filter(([k]) => !(HISTORY_KEYS as readonly string[]).includes(k)),
  );
  const checked = op.params.safeParse(lookupParams);
  if (!checked.success) throw zodToInvalidParameter(checked.error);
  const canonical = op.canonicalParams ? op.canonicalParams(checked.data) : checked.data;
  const { from, to, interval, kind, format } = seriesParams(str, Date.now());
  return {
    operation: op.name,
    params: canonical,
    format,
    series: {
      lookupKey: cacheKey(op.name, canonical),
      from,
      to,
      size: str('size'),
      kind,
      interval,
    },
  };
}
