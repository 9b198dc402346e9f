/**
 * Whether the browser-tier tests can run: they need a Chromium binary (MARKETLENS_BROWSER_PATH, else
 * /usr/bin/chromium, which `.ci/run` installs with apt). Without one they skip with a visible notice, except in CI,
 * where a missing browser is a failure rather than a silently green run.
 */
import { existsSync } from 'node:fs';

export const chromiumPath = process.env.MARKETLENS_BROWSER_PATH || '/usr/bin/chromium';
export const chromiumAvailable = existsSync(chromiumPath);

if (!chromiumAvailable) {
  if (process.env.CI)
    throw new Error(`CI is set but Chromium is missing at ${chromiumPath} (apt-get install -y chromium)`);
  console.warn(`\n[marketlens] NOTICE: no Chromium at ${chromiumPath} — browser-tier tests are skipped.\n`);
}
