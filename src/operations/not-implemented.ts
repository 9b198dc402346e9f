import { z } from 'zod';
import { MarketlensError } from '../errors.js';
import type { Marketplace } from '../marketplaces/catalog.js';
import type { CacheClass, Operation, OperationName } from './types.js';

/**
 * A registered operation whose upstream plan and parser are not built yet: routes, docs and validation exist,
 * and a lookup answers 501 not_implemented. Each marketplace's issue replaces its placeholders.
 */
export function notImplementedOperation(spec: {
  name: OperationName;
  marketplace: Marketplace;
  path: string;
  summary: string;
  params: z.ZodObject<any>;
  cacheClass: CacheClass;
}): Operation {
  const fail = (): never => {
    throw new MarketlensError('not_implemented', `${spec.name} is not implemented yet`);
  };
  return {
    ...spec,
    description: `${spec.summary}. Not implemented yet: answers 501.`,
    record: z.unknown(),
    fetch: async () => fail(),
    parse: fail,
    bodiesFromFiles: fail,
  };
}
