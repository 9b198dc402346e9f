/**
 * The outside check's bare baseline (bench/outside.ts): a minimal Fastify process, started with a plain `node` and no
 * bench machinery (no IPC, no V8 flags, no usage watcher), serving fixed bytes (BENCH_BARE_BODY_FILE) with the content
 * type the service sent (BENCH_BARE_TYPE) on 127.0.0.1:BENCH_BARE_PORT. It prints `listening` once ready and stops on
 * SIGTERM.
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const body = readFileSync(process.env.BENCH_BARE_BODY_FILE!);
const type = process.env.BENCH_BARE_TYPE ?? 'application/json';
const bare = Fastify({ logger: false });
bare.get('/api/v1/scraper/resale-b/prices', async (_req, reply) => reply.type(type).send(body));
await bare.listen({ host: '127.0.0.1', port: Number(process.env.BENCH_BARE_PORT) });
process.once('SIGTERM', () => void bare.close().then(() => process.exit(0)));
console.log('listening');
