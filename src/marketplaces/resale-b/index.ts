import { resaleBPrices } from './prices.js';
import { resaleBProduct } from './product.js';

export const resaleBOperations = {
  prices: resaleBPrices,
  product: resaleBProduct,
};
