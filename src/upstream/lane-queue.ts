/**
 * Waiters of the two lanes (lane.ts), in the order they get what they wait for (a concurrency slot, a wire start):
 * interactive first, each lane first come first served. So that scheduled work still moves under constant interactive
 * load, a waiting scheduled lookup gets the turn after SCHEDULED_TURN_EVERY − 1 interactive turns in a row were given
 * while it waited: at least 1 in SCHEDULED_TURN_EVERY turns (20 %) when both lanes are busy, all of them when no
 * caller waits. An interactive lookup arriving while only scheduled ones wait gets the very next turn (the count
 * starts again at every scheduled turn).
 */
import type { Lane, LaneName } from './lane.js';

export const SCHEDULED_TURN_EVERY = 5;

export interface LaneWaiter {
  readonly lane?: Lane;
}

export class LaneQueue<T extends LaneWaiter> {
  private readonly interactive: T[] = [];
  private readonly scheduled: T[] = [];
  /** Interactive turns given in a row while a scheduled waiter waited. */
  private interactiveRun = 0;

  size(lane: LaneName): number {
    return lane === 'interactive' ? this.interactive.length : this.scheduled.length;
  }

  get length(): number {
    return this.interactive.length + this.scheduled.length;
  }

  /** Queues `w` behind the others of its lane (no lane: interactive). */
  push(w: T): void {
    (w.lane?.name === 'scheduled' ? this.scheduled : this.interactive).push(w);
  }

  /** Moves a waiting, just promoted waiter to the back of the interactive queue (its caller arrived now). */
  promote(w: T): void {
    if (remove(this.scheduled, w)) this.interactive.push(w);
  }

  /** Takes a waiter out (its deadline fired). */
  remove(w: T): void {
    if (!remove(this.interactive, w)) remove(this.scheduled, w);
  }

  /** The waiter whose turn it is, taken out of the queue; undefined when nobody waits. */
  next(): T | undefined {
    if (this.scheduled.length === 0) {
      this.interactiveRun = 0;
      return this.interactive.shift();
    }
    if (this.interactive.length === 0 || this.interactiveRun >= SCHEDULED_TURN_EVERY - 1) {
      this.interactiveRun = 0;
      return this.scheduled.shift();
    }
    this.interactiveRun += 1;
    return this.interactive.shift();
  }
}

function remove<T>(list: T[], w: T): boolean {
  const i = list.indexOf(w);
  if (i < 0) return false;
  list.splice(i, 1);
  return true;
}
