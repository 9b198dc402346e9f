/**
 * `.env.example` and docs/configuration.md are generated from the configuration schema (src/config-reference.ts):
 * they must match it, every variable must carry a description, and `.env.example` must parse back to the defaults.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CONFIG_VARIABLES, loadConfig } from '../src/config.js';
import { configReference, configurationMarkdown, envExample } from '../src/config-reference.js';
import { MARKETPLACE_DESCRIPTORS } from '../src/marketplaces/catalog.js';
import { REPO_ROOT } from './support/repo-root.js';

const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');
const REGENERATE = 'out of date: run `npm run gen:config` and commit the result';

describe('the generated configuration reference', () => {
  it('.env.example is what the schema generates', () => {
    expect(read('.env.example'), REGENERATE).toBe(envExample());
  });

  it('docs/configuration.md is what the schema generates', () => {
    expect(read('docs/configuration.md'), REGENERATE).toBe(configurationMarkdown());
  });

  it('lists every variable once, with a description and a default, per-marketplace ones included', () => {
    const listed = configReference().flatMap((s) => s.variables);
    expect(listed.map((v) => v.name).sort()).toEqual([...CONFIG_VARIABLES].sort());
    for (const v of listed) {
      expect(v.description.length, v.name).toBeGreaterThan(10);
      expect(v.defaultText, v.name).not.toBe('');
    }
    const env = read('.env.example');
    for (const mp of MARKETPLACE_DESCRIPTORS) {
      for (const suffix of ['CONCURRENCY', 'MAX_QUEUE', 'SCHEDULED_MAX_QUEUE', 'TIERS', 'MIN_INTERVAL_MS']) {
        expect(env).toMatch(new RegExp(`^# MARKETLENS_${mp.envName}_${suffix}=`, 'm'));
      }
    }
    expect(env).toMatch(/^# MARKETLENS_WATCHMARKET_CONCURRENCY=8$/m);
    expect(env).toMatch(/^# MARKETLENS_RESALE_A_MAX_QUEUE=200$/m);
  });

  it('.env.example uncommented gives the same configuration as no variables at all', () => {
    const uncommented = read('.env.example')
      .split('\n')
      .filter((line) => /^# MARKETLENS_\w+=/.test(line))
      .map((line) => line.slice(2))
      .join('\n');
    const env = parseDotenv(uncommented);
    expect(Object.keys(env).length).toBe(CONFIG_VARIABLES.length);
    // Every written default is a valid value (the browser path is the machine's; "none" is the explicit off).
    const { browserPath: _a, ...fromFile } = loadConfig({ ...env, MARKETLENS_BROWSER_PATH: '' });
    const { browserPath: _b, ...fromNothing } = loadConfig({});
    expect(fromFile).toEqual(fromNothing);
  });

  it('refuses a variable added without a description, naming it', () => {
    const undocumented = {
      ...MARKETPLACE_DESCRIPTORS[0],
      id: 'toy',
      envName: 'TOY',
      site: 'Toy',
      settings: { MARKETLENS_TOY_SECRET: z.string().optional() },
    };
    expect(() => configReference([...MARKETPLACE_DESCRIPTORS, undocumented])).toThrow(/MARKETLENS_TOY_SECRET/);
  });
});
