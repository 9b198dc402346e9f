/**
 * `marketlens track add|list|pause|resume|remove`: tracked products from the command line, written to the same database the
 * server's scheduler reads (a running server picks them up at its next poll).
 *
 *   marketlens track add resale-b.prices query=1341930 country=US --interval 15m
 *   marketlens track list
 *   marketlens track pause <id>     (resume <id>: refetched again, once at once)
 *   marketlens track remove <id>
 */
import { printRecord, printRows, snakeCaseKeys, takeFormat } from '../cli-output.js';
import type { Config } from '../config.js';
import { MarketlensError } from '../errors.js';
import { addJob, listJobs, removeJob, setJobPaused } from '../jobs/index.js';
import { openStore } from '../store/index.js';
import { parseTrackRequest, TRACK_KIND, trackDoc } from './track.js';

export const TRACK_USAGE = `marketlens track add <operation> key=value… [--interval 15m]
marketlens track list [--json|--table]
marketlens track pause <id> | track resume <id> [--json|--table]
marketlens track remove <id>`;

export async function trackCommand(config: Config, words: string[]): Promise<number> {
  const { args, format } = takeFormat(words);
  const [sub, ...rest] = args;
  if (sub !== 'add' && sub !== 'list' && sub !== 'pause' && sub !== 'resume' && sub !== 'remove') {
    console.error(`Usage:\n${TRACK_USAGE}`);
    return 2;
  }
  const store = await openStore(config);
  try {
    if (sub === 'list') {
      // snake_case, as every other CLI listing (the HTTP route's answer keeps its documented shape).
      printRows(
        (await listJobs(store.db, TRACK_KIND)).map((job) => snakeCaseKeys(trackDoc(job))),
        format,
      );
      return 0;
    }
    if (sub === 'pause' || sub === 'resume') {
      if (!rest[0]) throw new MarketlensError('invalid_parameter', `track ${sub} needs the id (see track list)`);
      const job = await setJobPaused(store.db, rest[0], sub === 'pause', TRACK_KIND);
      if (!job) {
        console.error(`No tracked product ${rest[0]}`);
        return 1;
      }
      // The job as `track list` prints it, so a script reads both the same way.
      printRows([snakeCaseKeys(trackDoc(job))], format);
      return 0;
    }
    if (sub === 'remove') {
      if (!rest[0]) throw new MarketlensError('invalid_parameter', 'track remove needs the id (see track list)');
      if (!(await removeJob(store.db, rest[0], TRACK_KIND))) {
        console.error(`No tracked product ${rest[0]}`);
        return 1;
      }
      console.log(`Stopped tracking ${rest[0]}`);
      return 0;
    }
    const [operation, ...pairs] = rest;
    const body: Record<string, unknown> = { operation };
    for (let i = 0; i < pairs.length; i++) {
      const a = pairs[i]!;
      if (a === '--interval') body.interval = pairs[++i];
      else if (/^[a-z_]+=/.test(a)) body[a.slice(0, a.indexOf('='))] = a.slice(a.indexOf('=') + 1);
      else throw new MarketlensError('invalid_parameter', `"${a}": expected key=value or --interval`);
    }
    const { payload, intervalMs } = parseTrackRequest(body, null);
    const job = await addJob(store.db, { kind: TRACK_KIND, payload, intervalMs });
    printRecord(snakeCaseKeys(trackDoc(job)), format);
    return 0;
  } catch (e) {
    if (e instanceof MarketlensError) {
      console.error(e.message);
      return 2;
    }
    throw e;
  } finally {
    await store.close();
  }
}
