/** A route schema whose `operation` lists the operations the app records (the registry's, not only the built-ins). */
import { z } from 'zod';

/**
 * `schema` with its `operation` listing the operations the app records: the built-in ones as written in the schema,
 * or the app registry's (a marketplace added with `Registry.with` is charted and tracked like a built-in one).
 */
export function withRecorded<T extends z.ZodObject>(schema: T, recorded: string[]): T {
  const field = schema.shape.operation as z.ZodType;
  let operation: z.ZodType = z.enum(recorded as [string, ...string[]]);
  if (field instanceof z.ZodOptional) operation = operation.optional();
  if (field.description) operation = operation.describe(field.description);
  const meta = z.globalRegistry.get(schema);
  const extended = schema.extend({ operation });
  return (meta ? extended.meta(meta) : extended) as unknown as T;
}
