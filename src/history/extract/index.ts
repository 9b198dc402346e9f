/** LiveResult → ObservationBatch, per price-bearing operation. Operations without prices (the finder) give none. */
import type { LiveResult } from '../../operations/live-results.js';
import type { OperationName } from '../../operations/types.js';
import type { ObservationBatch } from '../observation.js';
import { extractElectronicsProduct } from './electronics.js';
import { extractResaleAProduct, extractResaleASearch } from './resale-a.js';
import { extractResaleBPrices, extractResaleBProduct, extractResaleBSearch } from './resale-b.js';
import { extractSportswearProduct } from './sportswear.js';
import { extractWatchmarketSearch } from './watchmarket.js';

const EXTRACTORS: Partial<Record<OperationName, (r: LiveResult) => ObservationBatch>> = {
  'resale-b.prices': extractResaleBPrices,
  'resale-b.product': extractResaleBProduct,
  'resale-b.search': extractResaleBSearch,
  'resale-a.product': extractResaleAProduct,
  'resale-a.search': extractResaleASearch,
  'watchmarket.search': extractWatchmarketSearch,
  'sportswear.product': extractSportswearProduct,
  'electronics.product': extractElectronicsProduct,
};

/** The observations of one live result, or null when the operation records nothing. */
export function extractObservations(result: LiveResult): ObservationBatch | null {
  const extract = EXTRACTORS[result.operation];
  return extract ? extract(result) : null;
}

export const RECORDED_OPERATIONS = Object.keys(EXTRACTORS) as OperationName[];
