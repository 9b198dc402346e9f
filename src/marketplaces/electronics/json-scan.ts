/**
 * String-slicing helpers for JSON embedded in HTML and JavaScript (no DOM, per ARCHITECTURE principle 2).
 */

/**
 * The end index (exclusive) of the JSON object or array starting at `start`, honouring strings and escapes; -1 when
 * it never closes.
 * @example balancedEnd('x({"a":[1]})', 2) // 11
 */
export function balancedEnd(text: string, start: number): number {
  const open = text[start];
  if (open !== '{' && open !== '[') return -1;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** Parses the JSON value (object or array) starting at `start`, or undefined when it is not valid JSON. */
export function parseJsonAt(text: string, start: number): { value: unknown; end: number } | undefined {
  const end = balancedEnd(text, start);
  if (end === -1) return undefined;
  try {
    return { value: JSON.parse(text.slice(start, end)), end };
  } catch {
    return undefined;
  }
}

/** Index of the next non-whitespace character at or after `i`. */
export function skipSpace(text: string, i: number): number {
  while (i < text.length && /\s/.test(text[i]!)) i++;
  return i;
}

/**
 * Reads a JavaScript string literal (single or double quoted) starting at `start` and returns its value, decoding
 * the escapes JSON knows plus `\'`, `\xHH` and `\/`.
 */
export function readJsString(text: string, start: number): { value: string; end: number } | undefined {
  const quote = text[start];
  if (quote !== '"' && quote !== "'") return undefined;
  let out = '';
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i]!;
    if (c === quote) return { value: out, end: i + 1 };
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = text[++i];
    switch (e) {
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'v':
        out += '\v';
        break;
      case '0':
        out += '\0';
        break;
      case 'x':
        out += String.fromCharCode(parseInt(text.slice(i + 1, i + 3), 16));
        i += 2;
        break;
      case 'u':
        out += String.fromCharCode(parseInt(text.slice(i + 1, i + 5), 16));
        i += 4;
        break;
      case undefined:
        return undefined;
      default:
        out += e; // \" \' \\ \/ and any other escaped character stand for themselves
    }
  }
  return undefined;
}
