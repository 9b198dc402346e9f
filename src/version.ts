/**
 * The service's version: package.json's, read once at start-up, so a release changes one place (and the CHANGELOG).
 * From src/ (tsx) and from dist/ (compiled) alike, package.json is one folder up.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';

const packageJson = z.object({ version: z.string().regex(/^\d+\.\d+\.\d+(?:[-+][\w.-]+)?$/) });

export const VERSION: string = packageJson.parse(
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')),
).version;
