/**
 * CONTRACT §2: `x-api-key` → the caller's key. Missing → 401 missing_api_key; unknown → 401 invalid_api_key;
 * revoked → 403 key_disabled. The key itself is never logged (pino redacts the header).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MarketlensError } from '../errors.js';
import type { KeyStore, StoredKey } from '../keys/key-store.js';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey?: StoredKey;
  }
}

export function makeAuthenticate(keys: KeyStore) {
  return async function authenticate(req: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const header = req.headers['x-api-key'];
    const presented = Array.isArray(header) ? header[0] : header;
    if (!presented) throw new MarketlensError('missing_api_key', 'Send your API key in the x-api-key header');
    const check = keys.verify(presented);
    if (!check.ok) {
      if (check.reason === 'disabled') throw new MarketlensError('key_disabled', 'This API key has been revoked');
      throw new MarketlensError('invalid_api_key', 'The API key in x-api-key is not valid');
    }
    req.apiKey = check.key;
  };
}
