/** Writes `.env.example` and docs/configuration.md from the configuration schema (src/config-reference.ts). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configurationMarkdown, envExample } from '../src/config-reference.js';
import { REPO_ROOT } from '../test/support/repo-root.js';

mkdirSync(join(REPO_ROOT, 'docs'), { recursive: true });
writeFileSync(join(REPO_ROOT, '.env.example'), envExample());
writeFileSync(join(REPO_ROOT, 'docs/configuration.md'), configurationMarkdown());
console.log('wrote .env.example and docs/configuration.md');
