/**
 * The core for one CLI command (`marketlens lookup`, `marketlens product`): the service's own parts — the same
 * lookup path, cache, history recording, product links and alert detection as the server — without HTTP. It is never
 * started (no scheduled jobs, deliveries or status publishing from a command): stopping it writes what the command's
 * lookups queued (history rows, alert detections) and closes what building it opened.
 */
import { SILENT_LOGGER } from '../platform/logger.js';
import pino from 'pino';
import type { Config } from '../config.js';
import { openStore } from '../store/index.js';
import { buildCore } from './index.js';
import type { Core } from './types.js';

/** A CLI process needs one or two database connections, not a server's pool. */
const COMMAND_POOL = 2;
const QUIET = SILENT_LOGGER;

export async function withCommandCore<T>(config: Config, work: (core: Core) => Promise<T>): Promise<T> {
  // Logs on stderr: stdout is the command's answer.
  const log = pino({ level: config.logLevel }, pino.destination(2));
  // Opened quietly, as by every other command (a first run's migration line is not the command's business).
  const store = await openStore(config, QUIET, { poolSize: COMMAND_POOL });
  try {
    const core = await buildCore({ config, store, log });
    try {
      return await work(core);
    } finally {
      await core.stop();
    }
  } finally {
    await store.close();
  }
}
