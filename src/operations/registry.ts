/**
 * Every operation of the spec, by name, and the registry the app is built from. Routes (neutral and alias paths),
 * OpenAPI, the CLI and tests are generated from it; `satisfies` makes a missing built-in operation a compile error.
 * A marketplace registered at runtime (a test's toy, a plugin) joins through `Registry.with` — no edit here.
 */
import { MARKETPLACE_DESCRIPTORS } from '../marketplaces/catalog.js';
import type { MarketplaceDescriptor } from '../marketplaces/descriptor.js';
import { electronicsOperations } from '../marketplaces/electronics/index.js';
import { resaleAOperations } from '../marketplaces/resale-a/index.js';
import { resaleBOperations } from '../marketplaces/resale-b/index.js';
import { sportswearOperations } from '../marketplaces/sportswear/index.js';
import { watchmarketOperations } from '../marketplaces/watchmarket/index.js';
import { OPERATION_NAMES, type AnyOperation, type Operation, type OperationName } from './types.js';

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
  'resale-b.search': resaleBOperations.search,
} as const satisfies Record<OperationName, Operation>;

/** A marketplace as one unit: its descriptor and its operations (what a folder contributes). */
export interface MarketplaceModule {
  marketplace: MarketplaceDescriptor;
  operations: readonly AnyOperation[];
}

/** The marketplaces and operations an app serves. Immutable: `with` returns a new registry. */
export class Registry {
  private readonly byName = new Map<string, AnyOperation>();
  private readonly byId = new Map<string, MarketplaceDescriptor>();

  constructor(
    readonly marketplaces: readonly MarketplaceDescriptor[],
    readonly operations: readonly AnyOperation[],
  ) {
    for (const d of marketplaces) {
      if (this.byId.has(d.id)) throw new Error(`marketplace ${d.id} is registered twice`);
      this.byId.set(d.id, d);
    }
    const paths = new Set<string>();
    for (const op of operations) {
      if (this.byName.has(op.name)) throw new Error(`operation ${op.name} is registered twice`);
      if (!this.byId.has(op.marketplace))
        throw new Error(`operation ${op.name} names unknown marketplace ${op.marketplace}`);
      this.byName.set(op.name, op);
      for (const p of [op.path, this.aliasPath(op)]) {
        if (paths.has(p)) throw new Error(`path ${p} is served twice`);
        paths.add(p);
      }
    }
  }

  /**
   * This registry plus one marketplace.
   * @example const registry = BUILT_IN_REGISTRY.with(toyMarketplace)
   */
  with(module: MarketplaceModule): Registry {
    return new Registry([...this.marketplaces, module.marketplace], [...this.operations, ...module.operations]);
  }

  operation(name: string): AnyOperation | undefined {
    return this.byName.get(name);
  }

  marketplace(id: string): MarketplaceDescriptor {
    const d = this.byId.get(id);
    if (!d) throw new Error(`unknown marketplace ${id}`);
    return d;
  }

  /** The alias path of an operation: the real site's name in place of the neutral word (Retailed-compatible). */
  aliasPath(op: AnyOperation): string {
    const { alias } = this.marketplace(op.marketplace);
    return op.path.replace(`/${op.marketplace}/`, `/${alias}/`).replace(`/${op.marketplace}-`, `/${alias}-`);
  }
}

export const BUILT_IN_REGISTRY = new Registry(
  MARKETPLACE_DESCRIPTORS,
  OPERATION_NAMES.map((n) => OPERATIONS[n]),
);

export function getOperation(name: string): Operation | undefined {
  return (OPERATION_NAMES as readonly string[]).includes(name) ? OPERATIONS[name as OperationName] : undefined;
}

/** The alias path of a built-in operation. */
export function aliasPath(op: Operation): string {
  return BUILT_IN_REGISTRY.aliasPath(op);
}

export function allOperations(): Operation[] {
  return OPERATION_NAMES.map((n) => OPERATIONS[n]);
}
