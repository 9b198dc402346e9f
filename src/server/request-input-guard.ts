/**
 * The one check of request text before any route reads it (issue 27): path parameters, the query string and the
 * JSON body of every route with a schema, inside validation, so the cached-hit path (which runs the route's own
 * validator) applies it too. Two things are refused, each as a 400 naming the parameter:
 * - a key, or a segment of a bracket key (`where[__proto__][equals]`), named `__proto__`, `constructor` or
 *   `prototype`: text that becomes an object key could otherwise reach an object's prototype (and through it the
 *   whole process's, as issue 27 item 1 did);
 * - text a store cannot hold: NUL (PostgreSQL refuses it in text) and a lone UTF-16 surrogate (not encodable as
 *   UTF-8: the database driver would store U+FFFD instead, a value the caller never sent).
 * Nothing is cleaned up: a value is stored as sent or refused.
 */
import type { FastifySchemaCompiler } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { invalidParam, type MarketlensError } from '../errors.js';
import { unstorableCharacter } from '../store/storable-text.js';
import { hasPrototypeSegment } from '../util/prototype-keys.js';

/** Why a text cannot be stored as sent, or undefined when it can. */
export function unstorableReason(text: string): string | undefined {
  const bad = unstorableCharacter(text);
  if (bad === undefined) return undefined;
  return bad === '\u0000'
    ? 'must not contain a NUL character (U+0000)'
    : 'must not contain a lone UTF-16 surrogate (not valid Unicode text)';
}

const PROTOTYPE_MESSAGE = 'a key (or key segment) may not be __proto__, constructor or prototype';

/** The problem with one key, or undefined. */
function keyProblem(key: string): string | undefined {
  if (hasPrototypeSegment(key)) return PROTOTYPE_MESSAGE;
  const bad = unstorableReason(key);
  return bad && `the parameter name ${bad}`;
}

/**
 * The first problem inside a value (nested keys and texts of a JSON value), or undefined. Iterative: a 64 KiB body
 * can nest thousands of levels deep, more than a recursive walk's stack holds.
 */
function valueProblem(value: unknown): string | undefined {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (typeof v === 'string') {
      const bad = unstorableReason(v);
      if (bad) return bad;
    } else if (Array.isArray(v)) {
      for (const item of v) pending.push(item);
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, inner] of Object.entries(v)) {
        const bad = keyProblem(k);
        if (bad) return `${bad} (inside it: ${JSON.stringify(k)})`;
        pending.push(inner);
      }
    }
  }
  return undefined;
}

/**
 * The 400 for hostile text in one part of a request, or undefined. Query-string and path parameters are named by
 * their key; a JSON body by its top-level key (as schema errors are), or `body` when it is not an object.
 */
export function checkRequestPart(part: string | undefined, data: unknown): MarketlensError | undefined {
  const isObject = typeof data === 'object' && data !== null && !Array.isArray(data);
  if (!isObject) {
    const bad = valueProblem(data);
    return bad === undefined ? undefined : invalidParam(part === 'body' ? 'body' : (part ?? 'query'), bad);
  }
  const record = data as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const value = record[key];
    // Query and path values are strings: checked without the walk (this runs on every cached lookup too).
    const bad = keyProblem(key) ?? (typeof value === 'string' ? unstorableReason(value) : valueProblem(value));
    if (bad) return invalidParam(key, bad);
  }
  return undefined;
}

/**
 * The zod validator compiler with the check in front: every route's params, querystring and body go through it.
 * @example app.setValidatorCompiler(guardedValidatorCompiler)
 */
export const guardedValidatorCompiler: FastifySchemaCompiler<z.ZodType> = (route) => {
  const validate = validatorCompiler(route);
  // Headers are not request text a route turns into keys or stores.
  if (route.httpPart === 'headers') return validate;
  return (data: unknown) => {
    const refused = checkRequestPart(route.httpPart, data);
    return refused ? { error: refused } : validate(data);
  };
};
