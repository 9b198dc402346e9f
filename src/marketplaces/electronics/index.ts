import { electronicsProduct } from './product.js';

export const electronicsOperations = {
  product: electronicsProduct,
};
