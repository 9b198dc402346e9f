/** The history route's query: its own parameters split from the lookup's, both validated. */
import { cacheKey } from '../cache/cache-key.js';
import { invalidParam } from '../errors.js';
import { BUILT_IN_REGISTRY, type Registry } from '../operations/registry.js';
import { zodToInvalidParameter } from '../param-errors.js';
import { recordedOperations } from './extract/index.js';
import { PRICE_KINDS } from './observation.js';
import { INTERVALS, type Interval } from './series.js';
import { parseTimeRange } from './time-param.js';

const HISTORY_KEYS = ['operation', 'size', 'kind', 'from', 'to', 'interval', 'format', 'max_age'] as const;

/** Splits the history route's own parameters from the lookup's, validates both; the lookup's go through its schema. */
export function historyParams(query: Record<string, unknown>, registry: Registry = BUILT_IN_REGISTRY) {
  const str = (k: string): string | undefined => {
    const v = query[k];
    if (v === undefined) return undefined;
    if (typeof v !== 'string') throw invalidParam(k, 'must be given once');
    return v;
  };
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
  const { from, to } = parseTimeRange(str, Date.now());
  const interval = str('interval');
  if (interval !== undefined && !Object.hasOwn(INTERVALS, interval))
    throw invalidParam('interval', 'must be hour, day or week');
  const kind = str('kind');
  if (kind !== undefined && !(PRICE_KINDS as readonly string[]).includes(kind))
    throw invalidParam('kind', `must be one of ${PRICE_KINDS.join(', ')}`);
  const format = str('format');
  if (format !== undefined && !['json', 'csv', 'svg'].includes(format))
    throw invalidParam('format', 'must be json, csv or svg');
  return {
    operation: op.name,
    params: canonical,
    format: format as 'json' | 'csv' | 'svg' | undefined,
    series: {
      lookupKey: cacheKey(op.name, canonical),
      from,
      to,
      size: str('size'),
      kind,
      interval: interval as Interval | undefined,
    },
  };
}
