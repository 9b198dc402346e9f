import { describe, expect, it } from 'vitest';
import { isStoreUnavailable } from './unavailable.js';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('isStoreUnavailable', () => {
  it('is true for a database that cannot take writes now', () => {
    for (const e of [
      withCode('terminating connection due to administrator command', '57P01'),
      withCode('the database system is starting up', '57P03'),
      withCode('could not extend file: No space left on device', '53100'),
      withCode('deadlock detected', '40P01'),
      withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      withCode('database is locked', 'SQLITE_BUSY'),
      withCode('database or disk is full', 'SQLITE_FULL'),
      withCode('disk I/O error', 'SQLITE_IOERR_WRITE'),
      new AggregateError([withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')], 'all refused'),
    ])
      expect(isStoreUnavailable(e), e.message).toBe(true);
  });

  it('is false for a row the database refuses, and for anything not an error', () => {
    for (const e of [
      withCode('invalid byte sequence for encoding "UTF8": 0x00', '22021'),
      withCode('new row violates check constraint', '23514'),
      withCode('CHECK constraint failed', 'SQLITE_CONSTRAINT_CHECK'),
      withCode('no such table: history_prices', 'SQLITE_ERROR'),
      new Error('something else'),
    ])
      expect(isStoreUnavailable(e), e.message).toBe(false);
    expect(isStoreUnavailable('ECONNREFUSED')).toBe(false);
    expect(isStoreUnavailable(undefined)).toBe(false);
  });
});
