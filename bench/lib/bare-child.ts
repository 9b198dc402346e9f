/**
 * The bare baseline in a process of its own: a plain `fastify({ logger: false })` route sending fixed bytes (those of
 * a cached lookup, read from BENCH_BARE_BODY_FILE with BENCH_BARE_TYPE), on 127.0.0.1, one process.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { serveMessages } from './child.js';

const body = readFileSync(process.env.BENCH_BARE_BODY_FILE!);
const type = process.env.BENCH_BARE_TYPE ?? 'application/json';
const bare = Fastify({ logger: false });
bare.get('/api/v1/scraper/resale-b/prices', async (_req, reply) => reply.type(type).send(body));
await bare.listen({ host: '127.0.0.1', port: 0 });

serveMessages({
  stop: async () => {
    await bare.close();
    setImmediate(() => process.exit(0));
    return {};
  },
});
process.send!({ type: 'ready', base: `http://127.0.0.1:${(bare.server.address() as AddressInfo).port}` });
