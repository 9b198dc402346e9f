/**
 * A marketplace's proxy pool: sessions take proxies in rotation; a proxy that failed (connect error, block) rests
 * for `restMs` before it is handed out again. When every proxy rests, the one resting longest is used anyway.
 */
export class ProxyPool {
  private cursor = 0;
  private readonly restingUntil = new Map<string, number>();

  constructor(
    readonly urls: readonly string[],
    private readonly restMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.urls.length;
  }

  /**
   * The next proxy in rotation that is not resting.
   * @example new ProxyPool(['http://a:1', 'http://b:1'], 60_000).next() // 'http://a:1'
   */
  next(): string | undefined {
    if (this.urls.length === 0) return undefined;
    const t = this.now();
    for (let i = 0; i < this.urls.length; i++) {
      const url = this.urls[(this.cursor + i) % this.urls.length]!;
      if ((this.restingUntil.get(url) ?? 0) <= t) {
        this.cursor = (this.cursor + i + 1) % this.urls.length;
        return url;
      }
    }
    const soonest = [...this.urls].sort((a, b) => this.restingUntil.get(a)! - this.restingUntil.get(b)!)[0]!;
    this.cursor = (this.urls.indexOf(soonest) + 1) % this.urls.length;
    return soonest;
  }

  rest(url: string): void {
    this.restingUntil.set(url, this.now() + this.restMs);
  }
}
