/** resale-a (StockX): spec 4.2 search and 4.6 product. */
import { resaleAProduct } from './product.js';
import { resaleASearch } from './search.js';

export const resaleAOperations = {
  search: resaleASearch,
  product: resaleAProduct,
};
