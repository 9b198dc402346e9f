/**
 * CPU a process has used so far (user + system), read from outside in /proc/<pid>/stat: the outside check measures
 * processes that run no bench code. Linux only; clock ticks (usually 100 a second) converted to µs.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

export interface ProcCpu {
  /** user + system, µs. */
  cpu_us: number;
  /** Of which system (the kernel), µs. */
  system_us: number;
}

export function procCpu(pid: number): ProcCpu {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces, so split after its closing parenthesis): utime is field 14,
  // stime field 15 of the whole line, i.e. the 12th and 13th after ")".
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const user = Number(fields[11]);
  const system = Number(fields[12]);
  const us = 1e6 / TICKS_PER_SECOND;
  return { cpu_us: (user + system) * us, system_us: system * us };
}
