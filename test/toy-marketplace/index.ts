/** The toy marketplace as one unit: descriptor + operations (what `Registry.with` takes). */
import type { MarketplaceModule } from '../../src/operations/registry.js';
import { toyDescriptor } from './marketplace.js';
import { toyPrice } from './price.js';

export const toyMarketplace: MarketplaceModule = { marketplace: toyDescriptor, operations: [toyPrice] };
