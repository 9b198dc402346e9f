/**
 * Reads the repository's Dockerfile into stages of instructions, so tests can run the steps an image build runs
 * (no container runtime here): which files a stage copies, the shell commands it runs, its ENV, CMD and so on.
 * Only the Dockerfile syntax the repository uses: `\` line continuations, `#` comments, JSON or shell forms.
 */
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './repo-root.js';

export interface Instruction {
  keyword: string;
  /** Everything after the keyword, continuation lines joined. */
  args: string;
}

export interface Stage {
  name: string;
  from: string;
  instructions: Instruction[];
}

export interface Copy {
  /** `--from=<stage>`, or undefined for the build context. */
  from?: string;
  sources: string[];
  destination: string;
}

export function readDockerfile(path = join(REPO_ROOT, 'Dockerfile')): Stage[] {
  const logical: string[] = [];
  let pending = '';
  for (const raw of readFileSync(path, 'utf8').split('\n')) {
    if (/^\s*#/.test(raw)) continue;
    const line = raw.trimEnd();
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const whole = (pending + line).trim();
    pending = '';
    if (whole) logical.push(whole);
  }
  const stages: Stage[] = [];
  for (const line of logical) {
    const [, keyword = '', args = ''] = /^(\w+)\s+(.*)$/s.exec(line) ?? [];
    const upper = keyword.toUpperCase();
    if (upper === 'FROM') {
      const [, from = '', name = String(stages.length)] = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args) ?? [];
      stages.push({ name, from, instructions: [] });
    } else if (stages.length > 0) {
      stages.at(-1)!.instructions.push({ keyword: upper, args });
    }
  }
  return stages;
}

export function stage(stages: Stage[], name: string): Stage {
  const found = stages.find((s) => s.name === name);
  if (!found) throw new Error(`the Dockerfile has no stage "${name}"`);
  return found;
}

/** A JSON-form argument list (`["a", "b"]`), or a shell-form one as `sh -c`. */
export function argv(args: string): string[] {
  return args.startsWith('[') ? (JSON.parse(args) as string[]) : ['/bin/sh', '-c', args];
}

export function copies(s: Stage): Copy[] {
  return s.instructions
    .filter((i) => i.keyword === 'COPY')
    .map((i) => {
      const words = i.args.split(/\s+/);
      const flags = words.filter((w) => w.startsWith('--'));
      const paths = words.filter((w) => !w.startsWith('--'));
      const from = flags.find((f) => f.startsWith('--from='))?.slice('--from='.length);
      return { from, sources: paths.slice(0, -1), destination: paths.at(-1)! };
    });
}

/**
 * `ENV A=1 B=2` lines → { A: '1', B: '2' } (unquoted values, as the Dockerfile writes them); `$NAME` expands from
 * earlier ENV values, then from `base` (the base image's environment: here, this process's).
 */
export function envOf(s: Stage, base: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const i of s.instructions.filter((x) => x.keyword === 'ENV')) {
    for (const pair of i.args.split(/\s+/)) {
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      env[pair.slice(0, eq)] = pair
        .slice(eq + 1)
        .replace(/\$(\w+)/g, (_m, name: string) => env[name] ?? base[name] ?? '');
    }
  }
  return env;
}

export const runs = (s: Stage): string[] => s.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
export const one = (s: Stage, keyword: string): string | undefined =>
  s.instructions.filter((i) => i.keyword === keyword).at(-1)?.args;

/** A COPY from the build context into a stage's work directory `root` (the image's /app), as the build runs it. */
export function copyFromContext(sources: string[], destination: string, root: string): void {
  for (const source of sources) {
    const target = destination.endsWith('/')
      ? join(root, destination, source.split('/').at(-1)!)
      : join(root, destination);
    cpSync(join(REPO_ROOT, source), target, { recursive: true });
  }
}
