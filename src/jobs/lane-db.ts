/**
 * A lane's polling loop on one instance: claims due heads from the store (several instances may poll one database;
 * the claim decides who runs what), runs them, and looks again at once after each one finishes. Without Redis this
 * is how a lane moves (every `pollMs`, and when woken after queueing); with Redis it is the slow safety sweep beside
 * the BullMQ dispatch (every `sweepMs`).
 */
import type { LaneClaim, LaneOutcome, LaneRunner, LaneSpec } from './lane.js';

export class DbLane<C extends LaneClaim> implements LaneRunner {
  private timer?: NodeJS.Timeout;
  private inFlight = 0;
  private ticking = false;
  private again = false;
  private stopped = true;
  private drained?: () => void;
  /** The poll in progress: `stop` waits for its claim, whose runs it then waits for like any in flight. */
  private polling: Promise<void> = Promise.resolve();

  constructor(
    private readonly spec: LaneSpec<C>,
    private readonly intervalMs: number,
    private readonly now: () => number = Date.now,
    /** Told of every outcome recorded by a run of this loop (the BullMQ dispatch schedules what follows). */
    private readonly onRecorded?: (claim: C, outcome: LaneOutcome) => void,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.timer = setInterval(() => this.wake(), this.intervalMs);
    this.timer.unref();
    this.wake();
  }

  queued(): void {
    this.wake();
  }

  resume(): void {
    this.wake();
  }

  /** Look for due heads now (called after queueing and after each run). */
  wake(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.polling = this.tick();
  }

  /** Stops claiming; waits (up to `waitMs`) for runs in flight. Unfinished ones are claimed again after a restart. */
  async stop(waitMs = 11_000): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    // A claim answered after the stop would lease its rows for `leaseMs` with nobody running them: the next instance
    // would wait the lease out. Its runs join the in-flight ones waited for below.
    await this.polling;
    if (this.inFlight === 0) return;
    await Promise.race([
      new Promise<void>((r) => (this.drained = r)),
      new Promise((r) => setTimeout(r, waitMs).unref()),
    ]);
  }

  private async tick(): Promise<void> {
    const { spec } = this;
    this.ticking = true;
    try {
      do {
        this.again = false;
        const free = spec.timing.concurrency - this.inFlight;
        if (free <= 0 || this.stopped) break;
        const claimed = await spec.store.claim(free, spec.timing.leaseMs, this.now());
        for (const c of claimed) {
          this.inFlight++;
          void this.run(c)
            .catch((e) => spec.log.error({ err: e, delivery: c.id }, `${spec.label} delivery bookkeeping failed`))
            .finally(() => {
              spec.finished?.(c);
              this.inFlight--;
              if (this.inFlight === 0) this.drained?.();
              this.wake();
            });
        }
        if (claimed.length === free) this.again = true;
      } while (this.again && !this.stopped);
    } catch (e) {
      spec.log.warn({ err: e }, `${spec.label} queue poll failed; retrying`);
    } finally {
      this.ticking = false;
    }
  }

  private async run(c: C): Promise<void> {
    const outcome = await this.spec.run(c);
    if (outcome) this.onRecorded?.(c, outcome);
  }
}
