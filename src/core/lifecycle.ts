/**
 * The core's parts in their declared order: `start` runs them first to last, `stop` last to first. Every part's
 * `stop` runs whether or not the core was started (each is safe on a part that never ran): a core built and never
 * started — a CLI command using a few parts — still closes what building it opened (the database, Redis
 * connections, the recorder's queue).
 */
export interface Part {
  name: string;
  start?: () => void | Promise<void>;
  stop?: () => void | Promise<void>;
}

export class Lifecycle {
  private readonly parts: Part[] = [];
  private started = false;
  private stopping: Promise<void> | undefined;

  constructor(private readonly onStep?: (step: 'start' | 'stop', part: string) => void) {}

  /** Declares the next part: it starts after every part declared before it, and stops before them. */
  add(part: Part): void {
    this.parts.push(part);
  }

  /** Part names in start order. */
  get order(): string[] {
    return this.parts.map((p) => p.name);
  }

  /** Once; a later call does nothing. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    for (const part of this.parts) {
      this.onStep?.('start', part.name);
      await part.start?.();
    }
  }

  /** Last declared first; runs once (later calls wait for the first). One part failing does not keep the rest open. */
  stop(): Promise<void> {
    this.stopping ??= this.stopAll();
    return this.stopping;
  }

  private async stopAll(): Promise<void> {
    let failure: unknown;
    for (const part of [...this.parts].reverse()) {
      try {
        this.onStep?.('stop', part.name);
        await part.stop?.();
      } catch (e) {
        failure ??= e;
      }
    }
    if (failure !== undefined) throw failure;
  }
}
