// Loaded with `node --import tsx --import ./test/support/forbid-fastify.ts`: from then on, resolving any module of
// the HTTP framework (fastify, @fastify/*, fastify-*) throws, so a module graph that would load it fails to import.
import { register } from 'node:module';

const hooks = `
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (/\\/node_modules\\/(fastify|@fastify\\/[^/]+|fastify-[^/]+)\\//.test(resolved.url))
    throw new Error('HTTP framework imported: ' + resolved.url + ' (from ' + context.parentURL + ')');
  return resolved;
}
`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
