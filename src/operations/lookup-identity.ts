/** What a lookup is about (apart from types.ts for the same reason as operation-names.ts). */
import type { Marketplace } from '../marketplaces/catalog.js';
import type { OperationName } from './operation-names.js';

/** What a lookup is about, independent of how the caller spelled it (a GOAT URL and its slug are one identity). */
export interface LookupIdentity {
  marketplace: Marketplace;
  operation: OperationName;
  /** Canonical product id (product operations) or a canonical search key (search operations). */
  id: string;
  /** The request's country (ISO 3166-1 alpha-2, upper case) when the operation has one, else null. */
  country: string | null;
  /** ISO 4217 code of every price in the record, when the operation knows it, else null. */
  currency: string | null;
  /** The request's locale (`en-US` form) when the operation has one, else null. */
  locale: string | null;
}

/** The record-dependent part of a lookup's identity (the operation adds marketplace and name). */
export type RecordIdentity = Omit<LookupIdentity, 'marketplace' | 'operation'>;
