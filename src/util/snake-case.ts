/**
 * The naive camelCase → snake_case the spec's names come from: `_` before each upper-case letter, then lower-case;
 * digits untouched. It reproduces `taxonomy_level1`, `available_sizes_new_v2` and `is_m_a_p` (from `isMAP`).
 * @example snakeKey('isMAP') // 'is_m_a_p'
 */
export function snakeKey(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`).replace(/^_/, '');
}

/** Recursively snake_cases object keys (arrays and nested objects included); `renames` win over the rule. */
export function snakeKeysDeep(value: unknown, renames: Readonly<Record<string, string>> = {}): unknown {
  if (Array.isArray(value)) return value.map((v) => snakeKeysDeep(v, renames));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[renames[k] ?? snakeKey(k)] = snakeKeysDeep(v, renames);
  return out;
}
