/**
 * Canaries (MARKETLENS_CANARY_INTERVAL): the doctor's lookups, run live on a timer through the service's own lookup
 * path, so their answers and failures reach every subscriber of the live-results seam — /api/v1/status, history, and
 * the alerts' `marketplace.changed` event — exactly as a caller's lookups do. In-process: each instance runs its own.
 */
import type { LookupService } from '../operations/lookup.js';
import { OPERATIONS } from '../operations/registry.js';
import { OPERATION_NAMES } from '../operations/types.js';
import { DOCTOR_DEFAULTS } from './doctor.js';

export interface CanaryLog {
  warn(obj: object, msg?: string): void;
}

export class Canaries {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly lookup: LookupService,
    private readonly intervalMs: number,
    private readonly log: CanaryLog,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      // A round slower than the interval is not doubled up: the next tick finds it still running and skips.
      if (!this.running) this.running = this.round().finally(() => (this.running = undefined));
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  /** One lookup per operation, one at a time (a canary must never be a burst), each forced live (max_age=0). */
  async round(): Promise<void> {
    for (const name of OPERATION_NAMES) {
      if (this.stopped) return;
      const op = OPERATIONS[name];
      try {
        const params = op.params.parse(DOCTOR_DEFAULTS[name]) as Record<string, unknown>;
        await this.lookup.run(op, params, { maxAgeSeconds: 0 });
      } catch (e) {
        // Already counted through the seam; the log line says which canary failed.
        this.log.warn({ canary: name, code: (e as { code?: string }).code }, 'canary lookup failed');
      }
    }
  }
}
