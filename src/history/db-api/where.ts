/**
 * Payload-style `where` trees → Kysely conditions, on a whitelist of fields (collections.ts). Operators as Retailed
 * documents them: equals, not_equals, greater_than(_equal), less_than(_equal), like, contains, in, not_in, exists.
 */
import type { UntypedTables } from '../../store/untyped-tables.js';
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import { invalidParam } from '../../errors.js';
import { parseTimeParam } from '../time-param.js';
import type { Collection, FieldDef } from './collections.js';
import type { Nested } from './nested-query.js';

export const OPERATORS = [
  'equals',
  'not_equals',
  'greater_than',
  'greater_than_equal',
  'less_than',
  'less_than_equal',
  'like',
  'contains',
  'in',
  'not_in',
  'exists',
] as const;
type Operator = (typeof OPERATORS)[number];

type Eb = ExpressionBuilder<UntypedTables, string>;
type Cond = Expression<SqlBool>;

/** Compiles the `where` object; `param` is the key path so far, for error messages (`where[or][0][size]`). */
export function compileWhere(eb: Eb, collection: Collection, where: Nested, param = 'where'): Cond {
  if (typeof where !== 'object' || Array.isArray(where))
    throw invalidParam(param, 'must be an object of field[operator]=value');
  const parts: Cond[] = [];
  for (const [key, value] of Object.entries(where)) {
    const here = `${param}[${key}]`;
    if (key === 'or' || key === 'and') {
      if (typeof value !== 'object' || Array.isArray(value))
        throw invalidParam(here, 'must hold numbered conditions, e.g. [0][field][equals]=…');
      const subs = Object.entries(value).map(([i, sub]) => {
        if (!/^\d+$/.test(i)) throw invalidParam(`${here}[${i}]`, 'must be numbered from 0');
        return compileWhere(eb, collection, sub, `${here}[${i}]`);
      });
      if (subs.length === 0) continue;
      parts.push(key === 'or' ? eb.or(subs) : eb.and(subs));
      continue;
    }
    // Own fields only: an inherited name (`toString`, `constructor`) is no field.
    const field = Object.hasOwn(collection.fields, key) ? collection.fields[key] : undefined;
    if (!field)
      throw invalidParam(here, `unknown field "${key}"; fields: ${Object.keys(collection.fields).join(', ')}`);
    // `where[size]=10` is shorthand for equals (its errors name the key as sent).
    if (typeof value === 'string' || Array.isArray(value)) {
      parts.push(condition(eb, field, 'equals', value, here));
      continue;
    }
    for (const [op, operand] of Object.entries(value)) {
      if (!(OPERATORS as readonly string[]).includes(op)) {
        throw invalidParam(`${here}[${op}]`, `unknown operator "${op}"; operators: ${OPERATORS.join(', ')}`);
      }
      parts.push(condition(eb, field, op as Operator, operand, `${here}[${op}]`));
    }
  }
  return parts.length === 1 ? parts[0]! : eb.and(parts);
}

function condition(eb: Eb, field: FieldDef, op: Operator, operand: Nested, param: string): Cond {
  const col = eb.ref(field.column);
  if (typeof operand === 'object' && !Array.isArray(operand)) throw invalidParam(param, 'must be a value');
  switch (op) {
    case 'exists': {
      const want = scalar(operand, param);
      if (want !== 'true' && want !== 'false') throw invalidParam(param, 'must be true or false');
      return want === 'true' ? eb(col, 'is not', null) : eb(col, 'is', null);
    }
    case 'in':
    case 'not_in': {
      const list = (Array.isArray(operand) ? operand : operand.split(',')).map((v) => typed(field, v.trim(), param));
      if (list.length === 0) throw invalidParam(param, 'needs at least one value');
      return op === 'in' ? eb(col, 'in', list) : eb(col, 'not in', list);
    }
    case 'like':
    case 'contains': {
      if (field.type !== 'string') throw invalidParam(param, `${op} applies to text fields only`);
      const text = scalar(operand, param).toLowerCase();
      // like: every word somewhere in the field (Payload); contains: the text as one piece. Case-insensitive both.
      const pieces = op === 'like' ? text.split(/\s+/).filter(Boolean) : [text];
      // ESCAPE is spelled out: SQLite has no default escape character, PostgreSQL's is the same backslash.
      return eb.and(pieces.map((p) => sql<SqlBool>`lower(${col}) like ${`%${escapeLike(p)}%`} escape '\\'`));
    }
    default: {
      const v = typed(field, scalar(operand, param), param);
      const sqlOp = {
        equals: '=',
        not_equals: '<>',
        greater_than: '>',
        greater_than_equal: '>=',
        less_than: '<',
        less_than_equal: '<=',
      }[op];
      // not_equals keeps rows where the field is null (Payload's behaviour: "not this value").
      if (op === 'not_equals') return eb.or([eb(col, '<>', v), eb(col, 'is', null)]);
      return eb(col, sqlOp as '=', v);
    }
  }
}

function scalar(operand: Nested, param: string): string {
  if (typeof operand === 'string') return operand;
  throw invalidParam(param, 'must be given once');
}

/** A query-string value as the column's type: numbers, booleans (stored as 0/1), dates (stored as ms since epoch). */
function typed(field: FieldDef, raw: string, param: string): string | number {
  switch (field.type) {
    case 'number': {
      const n = Number(raw);
      if (raw === '' || !Number.isFinite(n)) throw invalidParam(param, `"${raw}" is not a number`);
      return n;
    }
    case 'boolean':
      if (raw === 'true') return 1;
      if (raw === 'false') return 0;
      throw invalidParam(param, 'must be true or false');
    case 'date': {
      const ms = parseTimeParam(raw);
      if (ms === undefined) throw invalidParam(param, `"${raw}" is not a date (ISO 8601 or ms since epoch)`);
      return ms;
    }
    default:
      return raw;
  }
}

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}
