import type { StatusId } from '../../../contracts/status-types.js';
import { randomPackage } from './packages.js';
import { warehouses, randomAddress } from './places.js';
import { Plan, type PlannedEvent } from './plan.js';
import type { Random } from './random.js';

/** How far a sales order gets, and how it ships. */
export interface SalesOrderProfile {
  ending: 'received' | 'canceled' | 'production' | 'partial' | 'delivered';
  hold?: boolean;
  locations?: [number, number];
  completion?: 'by-location' | 'whole';
  voids?: boolean;
}

// Drawn as a deck (each once per round) so that even a small data set has every kind of order.
export const profiles: readonly SalesOrderProfile[] = [
  { ending: 'delivered', locations: [2, 3], completion: 'by-location' },
  { ending: 'delivered', locations: [1, 2], completion: 'whole' },
  { ending: 'delivered', hold: true, locations: [1, 1], completion: 'whole' },
  { ending: 'canceled' },
  { ending: 'production' },
  { ending: 'partial', locations: [2, 2], completion: 'by-location' },
  { ending: 'received' },
  { ending: 'delivered', voids: true, locations: [1, 2], completion: 'by-location' },
];

const holds: readonly StatusId[] = [40, 41, 42, 43, 44];
const day = 24;

/** The events of one sales order, from order received to wherever its profile ends. */
export function planSalesOrder(random: Random, profile: SalesOrderProfile, purchaseOrderNumber: string | undefined): PlannedEvent[] {
  const plan = new Plan(random);
  const po = purchaseOrderNumber === undefined ? {} : { purchaseOrderNumber };
  const shipIn = random.int(6, 18) * day;
  const deliverIn = shipIn + random.int(2, 6) * day;
  let confirmed = false;
  // Each status event carries the full status state: once confirmed, the expected dates and
  // whether the distributor must answer (proof and art holds).
  const status = (statusId: StatusId, gap?: [number, number]) => {
    const dated = confirmed;
    plan.add('SalesOrderStatusChanged', (clock) => ({
      ...po,
      statusId,
      ...(dated && { expectedShipDate: clock.at(shipIn), expectedDeliveryDate: clock.at(deliverIn), responseRequired: statusId === 42 || statusId === 43 }),
    }), gap);
  };

  status(10);
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
  const held = profile.hold || random.chance(0.15);
  if (held) status(random.pick(holds));
  if (profile.ending === 'canceled') {
    status(99);
    return plan.events;
  }
  if (held) status(20);

  const locations = random.int(...(profile.locations ?? [1, 3]));
  for (let locationId = 1; locationId <= locations; locationId++) {
    const from = random.pick(warehouses);
    const to = randomAddress(random);
    const destination = random.pick(['Commercial', 'Commercial', 'Residential', undefined] as const);
    plan.add('ShipmentLocationRecorded', () => ({
      locationId,
      shipFrom: from,
      shipTo: to,
      ...(destination && { shipmentDestinationType: destination }),
    }), [0.2, 6]);
  }

  if (random.chance(0.5)) status(30);
  status(60);
  if (profile.ending === 'production') {
    if (random.chance(0.3)) status(70);
    return plan.events;
  }

  const byLocation = profile.completion === 'by-location';
  for (let locationId = 1; locationId <= locations; locationId++) {
    let packageId = 0;
    const packages = random.int(1, 3);
    for (let p = 0; p < packages; p++) {
      const shipped = randomPackage(random, { locationId, packageId: ++packageId });
      plan.add('PackageShipped', (clock) => shipped(clock.now), [0.1, 8]);
    }
    if (profile.voids || random.chance(0.1)) {
      // A label voided in the ERP and the package shipped again under a new number.
      const voided = { locationId, packageId: random.int(1, packageId) };
      plan.add('PackageVoided', () => voided, [0.1, 2]);
      const reshipped = randomPackage(random, { locationId, packageId: ++packageId });
      plan.add('PackageShipped', (clock) => reshipped(clock.now), [0.1, 4]);
    }
    const last = locationId === locations;
    if (profile.ending === 'partial' && last) return plan.events;
    if (byLocation) plan.add('ShipmentCompleted', () => ({ locationId }), [0.1, 4]);
    if (!last && locationId === 1) status(75);
  }
  if (!byLocation) plan.add('ShipmentCompleted', () => ({}), [0.1, 4]);
  status(80);
  return plan.events;
}
