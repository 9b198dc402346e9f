/**
 * The outside check (issue 33): the cached-lookup ratio measured the way a user would check it, with nothing of the
 * bench inside the processes measured: `bin/marketlens serve` with MARKETLENS_LOG_LEVEL=warn and a static key, against
 * a minimal Fastify process sending the same bytes, `wrk -t1 -c50` against each in turn (bench/lib/versus-bare.ts).
 * Figure 1 (throughput.ts) is the same measurement at the service's default log level; `npm run bench -- outside`
 * prints the two ratios side by side from the same run and whether they agree within 10 %.
 *
 * Alone: `npx tsx bench/outside.ts`. BENCH_OUTSIDE_COMPARE=<checkout>[,…] (each with node_modules and dist/ built)
 * adds another version's start command to every round, after this checkout's: an A/B of two versions against the
 * same baseline, in the same minutes.
 */
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../test/support/repo-root.js';
import { versusBare, type VersusBareResult } from './lib/versus-bare.js';

export type OutsideResult = VersusBareResult;

export function outsideCheck(): Promise<OutsideResult> {
  const compare = process.env.BENCH_OUTSIDE_COMPARE?.split(',').filter(Boolean) ?? [];
  return versusBare({ roots: [REPO_ROOT, ...compare], logLevel: 'warn', generator: 'wrk' });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await outsideCheck(), null, 2));
}
