/**
 * Vitest reporter, beside the default one: at the end of every run, prints vitest's wall time and the 10 slowest test
 * files, so a run that got slower says where. `npm test` (scripts/test.sh) prints the whole command's wall time after
 * it, once the checks that ran beside vitest have finished too.
 */
import type { Reporter, TestModule } from 'vitest/node';

const SLOWEST = 10;

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** A file's own time: starting its environment, importing it (collecting its tests), its setup, its tests. */
function fileMs(m: TestModule): number {
  const d = m.diagnostic();
  return d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration;
}

export default class TimingReporter implements Reporter {
  private readonly vitestStartedAt = Date.now();

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const lines = ['', `vitest wall time: ${seconds(Date.now() - this.vitestStartedAt)}`];
    const slowest = [...testModules].sort((a, b) => fileMs(b) - fileMs(a)).slice(0, SLOWEST);
    if (slowest.length) lines.push(`slowest ${slowest.length} of ${testModules.length} files:`);
    for (const m of slowest)
      lines.push(`  ${seconds(fileMs(m)).padStart(8)}  ${m.relativeModuleId}  [${m.project.name}, ${m.state()}]`);
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}
