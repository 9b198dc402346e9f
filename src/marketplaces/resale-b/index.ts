import { resaleBPrices } from './prices.js';
import { resaleBProduct } from './product.js';
import { resaleBSearch } from './search.js';

export const resaleBOperations = {
  prices: resaleBPrices,
  product: resaleBProduct,
  search: resaleBSearch,
};
