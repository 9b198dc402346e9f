/**
 * Puts a parameter reader that throws `invalidParam` into the operation's zod schema, so a value the operation
 * cannot use is a 400 at validation time (before any cache lock or upstream request) with the reader's own message.
 */
import type { z } from 'zod';
import { isMarketlensError } from '../errors.js';

/**
 * @example z.string().superRefine(refineWith(parseProductQuery))
 */
export function refineWith(read: (value: string) => unknown): (value: string | undefined, ctx: z.RefinementCtx) => void {
  return (value, ctx) => {
    if (value === undefined) return;
    try {
      read(value);
    } catch (e) {
      if (!isMarketlensError(e) || e.code !== 'invalid_parameter') throw e;
      ctx.addIssue({ code: 'custom', message: e.errors?.[0]?.message ?? e.message });
    }
  };
}
