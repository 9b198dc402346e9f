/** resale-a (StockX): spec 4.2 search and 4.6 product; trends beyond the spec (CONTRACT §8). */
import { resaleAProduct } from './product.js';
import { resaleASearch } from './search.js';
import { resaleATrends } from './trends.js';

export const resaleAOperations = {
  search: resaleASearch,
  product: resaleAProduct,
  trends: resaleATrends,
};
