/**
 * The status parts of the core (src/core): the aggregator of this instance's figures and its sharing through Redis.
 * Free of the HTTP layer: the core subscribes the aggregator to its sources (src/core/seams.ts) and
 * src/status/index.ts serves it.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { RedisConnection } from '../platform/redis-connection.js';
import type { HttpClient } from '../upstream/http-client.js';
import { StatusAggregator } from './aggregator.js';
import { SharedStatus } from './shared-status.js';

export interface StatusParts {
  aggregator: StatusAggregator;
  /** Publishes this instance's figures (started and stopped with the core) and gathers every instance's. */
  shared: SharedStatus;
}

export function createStatusParts(http: HttpClient, redis: RedisConnection | undefined): StatusParts {
  const instance = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const aggregator = new StatusAggregator({
    instance,
    circuit: http.circuit
      ? (mp) => {
          const c = http.circuit!(mp);
          return { state: c.state, reopens_at: c.reopensAt === null ? null : new Date(c.reopensAt).toISOString() };
        }
      : undefined,
  });
  return { aggregator, shared: new SharedStatus(aggregator, redis, instance) };
}
