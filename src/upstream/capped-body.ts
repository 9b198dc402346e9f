/** Reading an upstream body without letting a huge one exhaust memory. */
import { MarketlensError } from '../errors.js';

/** Reads a body as text, failing once it grows past `max` bytes instead of buffering it whole. */
export async function readCapped(res: Response, max: number, signal?: AbortSignal): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? '0');
  if (declared > max) {
    await res.body?.cancel();
    throw new MarketlensError('upstream_error', `upstream body of ${declared} bytes exceeds the ${max}-byte cap`);
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  // At the deadline the body is cancelled, which closes the upstream connection: a body dripping past the deadline
  // would otherwise keep being read (and its socket open) long after the lookup answered.
  const onAbort = () => void reader.cancel(signal?.reason).catch(() => undefined);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (signal?.aborted) throw signal.reason;
      size += value.byteLength;
      if (size > max) {
        void reader.cancel().catch(() => undefined);
        throw new MarketlensError('upstream_error', `upstream body exceeds the ${max}-byte cap`);
      }
      chunks.push(value);
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  if (signal?.aborted) throw signal.reason;
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
