/** `marketlens doctor [operation…] [operation.param=value…] [--tier T] [--json]`: argument parsing and output. */
import { UsageError } from '../usage-error.js';
import { FETCH_TIERS, type Config, type FetchTier } from '../config.js';
import { BUILT_IN_REGISTRY, type Registry } from '../operations/registry.js';
import { formatDoctorTable, runDoctor, type DoctorOptions } from './doctor.js';

export const DOCTOR_USAGE =
  'marketlens doctor [operation…] [operation.param=value…] [--tier direct|proxy|unblocker|browser] [--json]';

export class DoctorUsageError extends UsageError {}

export function parseDoctorArgs(
  args: string[],
  registry: Registry = BUILT_IN_REGISTRY,
): { json: boolean; options: DoctorOptions } {
  const names = registry.operations.map((op) => op.name);
  const options: DoctorOptions = { registry };
  const params: Record<string, Record<string, string>> = {};
  const only: string[] = [];
  let json = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--json') json = true;
    else if (a === '--tier') {
      const t = args[++i];
      if (!t || !(FETCH_TIERS as readonly string[]).includes(t))
        throw new DoctorUsageError(`--tier must be one of ${FETCH_TIERS.join(', ')}`);
      options.tier = t as FetchTier;
    } else if (names.includes(a)) only.push(a);
    else {
      const eq = a.indexOf('=');
      const name = names.find((n) => a.startsWith(`${n}.`));
      if (eq < 0 || !name || eq <= name.length + 1)
        throw new DoctorUsageError(`Unexpected "${a}". Usage: ${DOCTOR_USAGE}`);
      (params[name] ??= {})[a.slice(name.length + 1, eq)] = a.slice(eq + 1);
    }
  }
  if (only.length > 0) options.operations = only;
  options.params = params;
  return { json, options };
}

/** Prints the table (or JSON) and answers the exit code: 1 when any lookup failed. */
export async function doctorCommand(
  config: Config,
  args: string[],
  out: (s: string) => void = console.log,
): Promise<number> {
  const { json, options } = parseDoctorArgs(args);
  const rows = await runDoctor(config, options);
  out(json ? JSON.stringify(rows, null, 2) : formatDoctorTable(rows));
  return rows.every((r) => r.ok) ? 0 : 1;
}
