/**
 * Vitest reporter, beside the default one: at the end of every run, prints the wall time and the 10 slowest test
 * files, so a run that got slower says where. `npm test` exports TEST_STARTED_AT (ms since epoch) before its
 * checks (typecheck, lint, format, dist build), and the total then covers the whole command.
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
    const now = Date.now();
    const commandStartedAt = Number(process.env.TEST_STARTED_AT);
    const lines = [''];
    if (commandStartedAt > 0 && commandStartedAt <= this.vitestStartedAt)
      lines.push(
        `npm test wall time: ${seconds(now - commandStartedAt)} ` +
          `(checks and build ${seconds(this.vitestStartedAt - commandStartedAt)}; ` +
          `vitest ${seconds(now - this.vitestStartedAt)})`,
      );
    else lines.push(`vitest wall time: ${seconds(now - this.vitestStartedAt)}`);
    const slowest = [...testModules].sort((a, b) => fileMs(b) - fileMs(a)).slice(0, SLOWEST);
    if (slowest.length) lines.push(`slowest ${slowest.length} of ${testModules.length} files:`);
    for (const m of slowest)
      lines.push(`  ${seconds(fileMs(m)).padStart(8)}  ${m.relativeModuleId}  [${m.project.name}, ${m.state()}]`);
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}
