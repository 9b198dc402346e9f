/**
 * Every operation of the spec, by name. Routes (neutral and alias paths), OpenAPI, the CLI and tests are generated
 * from this record; `satisfies` makes a missing operation a compile error.
 */
import { MARKETPLACE_INFO } from '../marketplaces/catalog.js';
import { electronicsOperations } from '../marketplaces/electronics/index.js';
import { resaleAOperations } from '../marketplaces/resale-a/index.js';
import { resaleBOperations } from '../marketplaces/resale-b/index.js';
import { sportswearOperations } from '../marketplaces/sportswear/index.js';
import { watchmarketOperations } from '../marketplaces/watchmarket/index.js';
import { OPERATION_NAMES, type Operation, type OperationName } from './types.js';

export const OPERATIONS = {
  'watchmarket.finder': watchmarketOperations.finder,
  'watchmarket.search': watchmarketOperations.search,
  'resale-a.search': resaleAOperations.search,
  'resale-a.product': resaleAOperations.product,
  'resale-b.prices': resaleBOperations.prices,
  'resale-b.product': resaleBOperations.product,
  'sportswear.product': sportswearOperations.product,
  'electronics.product': electronicsOperations.product,
  'resale-a.trends': resaleAOperations.trends,
} as const satisfies Record<OperationName, Operation>;

export function getOperation(name: string): Operation | undefined {
  return (OPERATION_NAMES as readonly string[]).includes(name) ? OPERATIONS[name as OperationName] : undefined;
}

/** The alias path of an operation: the real site's name in place of the neutral word (Retailed-compatible). */
export function aliasPath(op: Operation): string {
  const { alias } = MARKETPLACE_INFO[op.marketplace];
  return op.path.replace(`/${op.marketplace}/`, `/${alias}/`).replace(`/${op.marketplace}-`, `/${alias}-`);
}

export function allOperations(): Operation[] {
  return OPERATION_NAMES.map((n) => OPERATIONS[n]);
}
