/** Reading an upstream body without letting a huge one exhaust memory. */
import { MarketlensError } from '../errors.js';

/**
 * How a body is let go of at the deadline: `inFlight` is the read pending at that moment, if any. The default cancels
 * the stream at once; a transport whose stream cannot be cancelled mid-read passes its own (impit-transport.ts).
 */
export type ReleaseBody = (reader: ReadableStreamDefaultReader<Uint8Array>, inFlight: PendingRead | undefined) => void;
export type PendingRead = ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>;

const cancelNow: ReleaseBody = (reader) => void reader.cancel().catch(() => undefined);

/**
 * Reads a body as text, failing once it grows past `max` bytes instead of buffering it whole.
 *
 * At the deadline (`signal`) it fails at once and the body is released (`release`), which closes the upstream
 * connection: a body dripping past the deadline would otherwise keep being read (and its socket open) long after
 * the lookup answered.
 */
export async function readCapped(
  res: Response,
  max: number,
  signal?: AbortSignal,
  release: ReleaseBody = cancelNow,
): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? '0');
  if (declared > max) {
    await res.body?.cancel();
    throw new MarketlensError('upstream_error', `upstream body of ${declared} bytes exceeds the ${max}-byte cap`);
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  let inFlight: PendingRead | undefined;
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => {
      release(reader, inFlight);
      reject(signal?.reason);
    };
  });
  aborted.catch(() => undefined);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      inFlight = reader.read();
      const { done, value } = await Promise.race([inFlight, aborted]);
      inFlight = undefined;
      if (done) break;
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
