import type { ErpEventOf, ErpEventType } from '../../../contracts/erp-event-schema.js';
import type { Random } from './random.js';

/** Times of one sales order's events, given once the plan is placed on the calendar. */
export interface Clock {
  /** This event's time, UTC. */
  now: string;
  /** `hours` after the sales order's first event, UTC. */
  at(hours: number): string;
}

export type PlannedEvent = {
  [T in ErpEventType]: { type: T; hours: number; data: (clock: Clock) => ErpEventOf<T>['data'] };
}[ErpEventType];

/**
 * One sales order's events in order, each some hours after the previous; times are relative so
 * that the whole plan can be placed in the recent past once its length is known.
 */
export class Plan {
  readonly events: PlannedEvent[] = [];
  private hours = 0;

  constructor(private readonly random: Random) {}

  add<T extends ErpEventType>(type: T, data: (clock: Clock) => ErpEventOf<T>['data'], gapHours: [number, number] = [1, 30]): void {
    if (this.events.length > 0) this.hours += this.random.int(gapHours[0] * 60, gapHours[1] * 60) / 60;
    this.events.push({ type, hours: this.hours, data } as PlannedEvent);
  }
}
