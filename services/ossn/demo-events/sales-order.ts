import type { ErpEventOf, ProductLine } from '../../../contracts/erp-event-schema.js';
import type { StatusId } from '../../../contracts/status-types.js';
import { randomContacts, randomIssue, randomLines, shippedLines } from './order-details.js';
import { randomPackage } from './packages.js';
import { randomRecipient } from './people.js';
import { warehouses, randomAddress } from './places.js';
import { Plan, type PlannedEvent } from './plan.js';
import type { Random } from './random.js';

/** How far a sales order gets, and how it ships. */
export interface SalesOrderProfile {
  ending: 'received' | 'canceled' | 'production' | 'partial' | 'delivered' | 'on-hold';
  hold?: boolean;
  /** An issue the ERP records beside the statuses, and where it ends: still Open, Pending (waiting for the distributor), or Closed. */
  issue?: 'open' | 'pending' | 'closed';
  locations?: [number, number];
  completion?: 'by-location' | 'whole';
  voids?: boolean;
}

// Drawn as a deck (each once per round) so that even a small data set has every kind of order.
export const profiles: readonly SalesOrderProfile[] = [
  { ending: 'delivered', locations: [2, 3], completion: 'by-location' },
  { ending: 'delivered', locations: [1, 2], completion: 'whole' },
  { ending: 'delivered', hold: true, issue: 'closed', locations: [1, 1], completion: 'whole' },
  { ending: 'canceled' },
  { ending: 'production', issue: 'open' },
  { ending: 'partial', issue: 'pending', locations: [2, 2], completion: 'by-location' },
  { ending: 'received' },
  { ending: 'delivered', voids: true, locations: [1, 2], completion: 'by-location' },
  { ending: 'on-hold', locations: [1, 2] },
];

const holds: readonly StatusId[] = [40, 41, 42, 43, 44];
const day = 24;

/** What the ERP says about a hold (contract v2's additionalExplanation). */
const holdExplanations: Partial<Record<StatusId, string>> = {
  11: 'The ship-to address is incomplete; order entry will resume once it is confirmed.',
  40: 'The order is under review by customer service.',
  41: 'The order exceeds the available credit; awaiting payment.',
  42: 'Waiting for your approval of the virtual proof.',
  43: 'The artwork needs a vector file (AI, EPS or PDF).',
  44: 'A part is back-ordered at the mill.',
};

type StatusExtras = Pick<ErpEventOf<'SalesOrderStatusChanged'>['data'], 'statusV2' | 'additionalExplanation' | 'qualityProofURL'>;

/** The events of one sales order, from order received to wherever its profile ends. */
export function planSalesOrder(random: Random, profile: SalesOrderProfile, purchaseOrderNumber: string | undefined): PlannedEvent[] {
  const plan = new Plan(random);
  const po = purchaseOrderNumber === undefined ? {} : { purchaseOrderNumber };
  const shipIn = random.int(6, 18) * day;
  const deliverIn = shipIn + random.int(2, 6) * day;
  const proofURL = `https://proofs.supplier.example/${random.alphanumeric(10)}`;
  let confirmed = false;
  let proofed = false;
  // Each status event carries the full status state: once confirmed, the expected dates and
  // whether the distributor must answer (proof and art holds); a hold says why; from the proof
  // (pre-production or a proof hold) on, where the proof is.
  const status = (statusId: StatusId, gap?: [number, number], extras: StatusExtras = {}) => {
    const dated = confirmed;
    proofed ||= statusId === 30 || statusId === 42;
    const proof = proofed;
    const explanation = holdExplanations[statusId];
    plan.add('SalesOrderStatusChanged', (clock) => ({
      ...po,
      statusId,
      ...(dated && { expectedShipDate: clock.at(shipIn), expectedDeliveryDate: clock.at(deliverIn), responseRequired: statusId === 42 || statusId === 43 }),
      ...(explanation && { additionalExplanation: explanation }),
      ...(proof && { qualityProofURL: proofURL }),
      ...extras,
    }), gap);
  };
  const lines = (recorded: ProductLine[]) => plan.add('SalesOrderLinesRecorded', () => ({ lines: recorded }), [0.1, 2]);

  status(10);
  if (random.chance(0.75)) {
    const contacts = randomContacts(random);
    plan.add('OrderContactsRecorded', () => ({ contacts }), [0.1, 2]);
  }
  if (random.chance(0.15)) {
    status(11, [0.5, 4]);
    status(10, [2, 24]);
  }
  if (profile.ending === 'received') return plan.events;
  if (profile.ending === 'canceled' && random.chance(0.5)) {
    status(99);
    return plan.events;
  }

  confirmed = true;
  status(20);
  const ordered = randomLines(random);
  lines(ordered);
  if (profile.ending === 'on-hold') {
    // Still on hold: the ERP said so twice, the second time with more to say.
    const hold = random.pick(holds);
    status(hold);
    status(hold, [2, 48], { additionalExplanation: `${holdExplanations[hold] ?? 'On hold.'} Reminder sent.` });
    return plan.events;
  }
  const held = profile.hold || random.chance(0.15);
  if (held) status(random.pick(holds));
  if (profile.ending === 'canceled') {
    status(99);
    return plan.events;
  }
  if (held) status(20);

  const issueEnd = profile.issue ?? (random.chance(0.15) ? random.pick(['open', 'pending', 'closed'] as const) : undefined);
  const issue = issueEnd && randomIssue(random, ordered);
  if (issue) plan.add('IssueRecorded', () => issue, [0.5, 12]);

  const locations = random.int(...(profile.locations ?? [1, 3]));
  for (let locationId = 1; locationId <= locations; locationId++) {
    const from = random.pick(warehouses);
    // A partner collecting at the warehouse has the goods "shipped" to it.
    const pickup = random.chance(0.1);
    const to = pickup ? from : { ...randomAddress(random), ...(random.chance(0.6) && randomRecipient(random)) };
    const destination = random.pick(['Commercial', 'Commercial', 'Residential', undefined] as const);
    plan.add('ShipmentLocationRecorded', () => ({
      locationId,
      shipFrom: from,
      shipTo: to,
      ...(destination && { shipmentDestinationType: destination }),
      ...((pickup || random.chance(0.3)) && { customerPickup: pickup }),
    }), [0.2, 6]);
  }

  if (random.chance(0.5)) status(30);
  if (issue && issueEnd !== 'open') plan.add('IssueRecorded', () => ({ ...issue, issueStatus: 'Pending' as const }), [1, 24]);
  status(60);
  if (issue && issueEnd === 'closed') plan.add('IssueRecorded', () => ({ ...issue, issueStatus: 'Closed' as const, urgentResponseRequired: false }), [1, 24]);
  if (profile.ending === 'production') {
    if (random.chance(0.3)) status(70);
    return plan.events;
  }

  const byLocation = profile.completion === 'by-location';
  for (let locationId = 1; locationId <= locations; locationId++) {
    let packageId = 0;
    const packages = random.int(1, 3);
    for (let p = 0; p < packages; p++) {
      const shipped = randomPackage(random, { locationId, packageId: ++packageId }, ordered);
      plan.add('PackageShipped', (clock) => shipped(clock.now), [0.1, 8]);
    }
    if (profile.voids || random.chance(0.1)) {
      // A label voided in the ERP and the package shipped again under a new number.
      const voided = { locationId, packageId: random.int(1, packageId) };
      plan.add('PackageVoided', () => voided, [0.1, 2]);
      const reshipped = randomPackage(random, { locationId, packageId: ++packageId }, ordered);
      plan.add('PackageShipped', (clock) => reshipped(clock.now), [0.1, 4]);
    }
    const last = locationId === locations;
    if (profile.ending === 'partial' && last) {
      lines(shippedLines(ordered, false));
      return plan.events;
    }
    if (byLocation) plan.add('ShipmentCompleted', () => ({ locationId }), [0.1, 4]);
    if (!last && locationId === 1) status(75);
  }
  if (!byLocation) plan.add('ShipmentCompleted', () => ({}), [0.1, 4]);
  lines(shippedLines(ordered, true));
  // Some ERPs say "shipped" until delivery is confirmed: 2.0.0's statusV2, which 1.0.0 never shows.
  status(80, undefined, random.chance(0.4) ? { statusV2: 'shipped', additionalExplanation: 'Shipped in full; delivery not yet confirmed.' } : {});
  return plan.events;
}
