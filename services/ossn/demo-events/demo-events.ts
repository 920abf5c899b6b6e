import type { ErpEvent } from '../../../contracts/erp-event-schema.js';
import type { Clock, PlannedEvent } from './plan.js';
import { Random } from './random.js';
import { planSalesOrder, profiles, type SalesOrderProfile } from './sales-order.js';
import { schemaVersionV2 } from '../../../contracts/erp-event-schema.js';

export interface DemoOptions {
  /** Number of clients: CLIENT-001, CLIENT-002, … */
  clients: number;
  /** Sales orders per client. */
  orders: number;
  seed: number;
  /**
   * Every event lies before this. Defaults to the start of the current UTC day, so that one seed
   * gives the same stream all day long; another day shifts the times only.
   */
  now?: Date;
}

const minuteMs = 60_000;
/** Fixed offsets of the clients' ERP clocks (UTC, US Eastern, Central, Pacific standard time). */
const clientOffsets = [0, -300, -360, -480];

const utc = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');

function withOffset(ms: number, offsetMinutes: number): string {
  if (offsetMinutes === 0) return utc(ms);
  const local = new Date(ms + offsetMinutes * minuteMs).toISOString().slice(0, 19);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** Purchase order numbers for one client's sales orders: most share one with 0–2 others, some have none. */
function purchaseOrderNumbers(random: Random, orders: number): (string | undefined)[] {
  const numbers: (string | undefined)[] = [];
  let next = random.int(10_000, 80_000);
  while (numbers.length < orders) {
    if (random.chance(0.12)) {
      numbers.push(undefined);
      continue;
    }
    const po = `PO-${next++}`;
    for (let n = random.int(1, 3); n > 0 && numbers.length < orders; n--) numbers.push(po);
  }
  return numbers;
}

function profileDeck(random: Random): () => SalesOrderProfile {
  let deck: SalesOrderProfile[] = [];
  return () => {
    if (deck.length === 0) deck = random.shuffled(profiles);
    return deck.pop() as SalesOrderProfile;
  };
}

interface Placed {
  ms: number;
  event: ErpEvent;
}

/**
 * A realistic, deterministic ERP event stream (seeded; Math.random is never used) in publish
 * order: each sales order's events with rising sequences, interleaved with the others by time.
 * Every event is valid by the contract and applies to the projections without rejection.
 */
export function generateDemoEvents({ clients, orders, seed, now }: DemoOptions): ErpEvent[] {
  const random = new Random(seed);
  const end = now ? Math.floor(now.getTime() / minuteMs) * minuteMs : new Date().setUTCHours(0, 0, 0, 0);
  const placed: Placed[] = [];

  for (let c = 0; c < clients; c++) {
    const clientId = `CLIENT-${String(c + 1).padStart(3, '0')}`;
    const offset = clientOffsets[c % clientOffsets.length] as number;
    const nextProfile = profileDeck(random);
    const firstSalesOrder = random.int(100_000, 800_000);
    purchaseOrderNumbers(random, orders).forEach((purchaseOrderNumber, i) => {
      const plan = planSalesOrder(random, nextProfile(), purchaseOrderNumber);
      const duration = (plan.at(-1) as PlannedEvent).hours;
      // Each sales order's last event lies between a few minutes and two weeks ago.
      const start = end - random.int(5, 14 * 24 * 60) * minuteMs - Math.ceil(duration * 60) * minuteMs;
      const at = (hours: number) => utc(start + Math.round(hours * 60) * minuteMs);
      plan.forEach((planned, index) => {
        const ms = start + Math.round(planned.hours * 60) * minuteMs;
        const clock: Clock = { now: utc(ms), at };
        const event = {
          eventId: random.uuid(),
          type: planned.type,
          schemaVersion: schemaVersionV2,
          clientId,
          salesOrderNumber: `SO-${firstSalesOrder + i}`,
          sequence: index + 1,
          occurredAt: withOffset(ms, offset),
          data: planned.data(clock),
        } as ErpEvent;
        placed.push({ ms, event });
      });
    });
  }
  // A stable sort keeps each sales order's events in sequence order when times are equal.
  return placed.sort((a, b) => a.ms - b.ms).map((p) => p.event);
}
