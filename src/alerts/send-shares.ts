/**
 * Who may hold this instance's send slots (issue 27, item 5): one key's receivers that never answer must not hold
 * every slot for a whole timeout while other receivers wait. Two shares, counted in flight on this instance:
 * - per key: at most `perKey` sends of one key at once, so another key always finds free slots;
 * - per key and target (scheme, host and port of the URL): at most `perTarget`, so a customer's dead backend holds a
 *   few of that key's slots and its other receivers are still served.
 * A subscription has at most one send in flight anyway (only its queue's head is claimable, which keeps its order).
 * The embedded loop turns `exclusions()` into its claim query's filter; the BullMQ dispatcher defers a job whose
 * subscription is over a share.
 */

/** What a claim must skip right now: keys at their share, and (key, target) pairs at theirs. */
export interface ClaimExclusions {
  keys: string[];
  /** `prefix` is the URL's text up to and including the first `/` after the host: what a stored URL starts with. */
  targets: { keyId: string; prefix: string }[];
}

/** The target part of a stored URL: `https://host:port/` (the text before the path, with its first slash). */
export function targetOf(url: string): string {
  const hostStart = url.indexOf('//') + 2;
  const pathStart = url.indexOf('/', hostStart);
  return pathStart < 0 ? `${url}/` : url.slice(0, pathStart + 1);
}

export class SendShares {
  private readonly byKey = new Map<string, number>();
  private readonly byTarget = new Map<string, { keyId: string; prefix: string; n: number }>();

  constructor(
    readonly perKey: number,
    readonly perTarget: number,
  ) {}

  /** Takes a slot for a send of `keyId` to `url`, unless the key or its target is at its share. */
  take(keyId: string, url: string): boolean {
    const prefix = targetOf(url);
    const id = `${keyId}\n${prefix}`;
    const key = this.byKey.get(keyId) ?? 0;
    const target = this.byTarget.get(id);
    if (key >= this.perKey || (target?.n ?? 0) >= this.perTarget) return false;
    this.byKey.set(keyId, key + 1);
    if (target) target.n++;
    else this.byTarget.set(id, { keyId, prefix, n: 1 });
    return true;
  }

  /** Gives back a slot `take` granted. */
  release(keyId: string, url: string): void {
    const id = `${keyId}\n${targetOf(url)}`;
    const key = (this.byKey.get(keyId) ?? 1) - 1;
    if (key > 0) this.byKey.set(keyId, key);
    else this.byKey.delete(keyId);
    const target = this.byTarget.get(id);
    if (target && --target.n <= 0) this.byTarget.delete(id);
  }

  exclusions(): ClaimExclusions {
    const keys = [...this.byKey].filter(([, n]) => n >= this.perKey).map(([k]) => k);
    const full = new Set(keys);
    const targets = [...this.byTarget.values()]
      .filter((t) => t.n >= this.perTarget && !full.has(t.keyId))
      .map(({ keyId, prefix }) => ({ keyId, prefix }));
    return { keys, targets };
  }
}
