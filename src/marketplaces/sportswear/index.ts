import { sportswearProduct } from './product.js';

export const sportswearOperations = {
  product: sportswearProduct,
};
