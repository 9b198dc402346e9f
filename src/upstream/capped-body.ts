/** Reading an upstream body without letting a huge one exhaust memory. */
import { MarketlensError } from '../errors.js';

/** Reads a body as text, failing once it grows past `max` bytes instead of buffering it whole. */
export async function readCapped(res: Response, max: number): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? '0');
  if (declared > max) {
    await res.body?.cancel();
    throw new MarketlensError('upstream_error', `upstream body of ${declared} bytes exceeds the ${max}-byte cap`);
  }
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > max) throw new MarketlensError('upstream_error', `upstream body exceeds the ${max}-byte cap`);
    chunks.push(chunk);
  }
  return new TextDecoder(charsetOf(res.headers.get('content-type'))).decode(Buffer.concat(chunks));
}

function charsetOf(contentType: string | null): string {
  const charset = contentType?.match(/charset=["']?([\w-]+)/i)?.[1];
  if (!charset) return 'utf-8';
  try {
    new TextDecoder(charset);
    return charset;
  } catch {
    return 'utf-8';
  }
}
