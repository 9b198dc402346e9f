import { watchmarketFinder } from './finder.js';
import { watchmarketSearch } from './search.js';

export const watchmarketOperations = {
  finder: watchmarketFinder,
  search: watchmarketSearch,
};
