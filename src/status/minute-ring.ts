/**
 * A fixed ring of 60 one-minute buckets of counters (a Float64Array of 60 × width). Recording bumps a number in the
 * current minute's bucket; a bucket still holding an older minute is zeroed first. Memory is fixed whatever the
 * traffic, and recording allocates nothing.
 */
export const RING_MINUTES = 60;

export class MinuteRing {
  /** Which epoch minute each bucket holds (-1 = never used). */
  private readonly minutes = new Float64Array(RING_MINUTES).fill(-1);
  readonly counts: Float64Array;

  constructor(readonly width: number) {
    this.counts = new Float64Array(RING_MINUTES * width);
  }

  /**
   * Offset of `minute`'s bucket in `counts`, claimed (zeroed) when it held an older minute.
   * @example ring.counts[ring.slot(minuteOf(Date.now())) + FIELD] += 1
   */
  slot(minute: number): number {
    const i = minute % RING_MINUTES;
    const base = i * this.width;
    if (this.minutes[i] !== minute) {
      this.minutes[i] = minute;
      this.counts.fill(0, base, base + this.width);
    }
    return base;
  }

  /** Sum of every field over the `span` minutes ending with `nowMinute` (buckets of older minutes are ignored). */
  sum(nowMinute: number, span: number): number[] {
    const out = new Array<number>(this.width).fill(0);
    for (let i = 0; i < RING_MINUTES; i++) {
      const m = this.minutes[i]!;
      if (m < 0 || m > nowMinute || m <= nowMinute - span) continue;
      const base = i * this.width;
      for (let f = 0; f < this.width; f++) out[f]! += this.counts[base + f]!;
    }
    return out;
  }
}

export const minuteOf = (ms: number): number => Math.floor(ms / 60_000);
