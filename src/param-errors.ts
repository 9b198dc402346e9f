/**
 * Parameter validation failures as the one error shape: a zod failure → 400 invalid_parameter naming each parameter.
 * Free of the HTTP layer, so the lookup path and the CLI use it as the routes do.
 */
import type { z } from 'zod';
import { MarketlensError, type ParamIssue } from './errors.js';

/** A zod failure on request parameters → 400 invalid_parameter with one entry per parameter. */
export function zodToInvalidParameter(error: z.ZodError): MarketlensError {
  const issues: ParamIssue[] = [];
  for (const i of error.issues) {
    if (i.code === 'unrecognized_keys') {
      for (const k of i.keys) issues.push(unknownKey(i.path.map(String), k));
    } else {
      const message = i.code === 'invalid_type' && /received undefined/.test(i.message) ? 'is required' : i.message;
      issues.push({ param: String(i.path[0] ?? 'query'), message });
    }
  }
  return new MarketlensError('invalid_parameter', issues.map((i) => `${i.param}: ${i.message}`).join('; '), {
    errors: issues,
  });
}

/**
 * An unknown key: at the top it is an unknown parameter; inside one (a webhook `filter`) the issue names that
 * parameter, as every other nested error does, and says which key.
 */
export function unknownKey(path: string[], key: string): ParamIssue {
  if (path.length === 0) return { param: key, message: 'unknown parameter' };
  return { param: path[0]!, message: `unknown key ${JSON.stringify([...path.slice(1), key].join('.'))}` };
}
