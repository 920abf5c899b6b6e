import { eventKey, type ErpEvent, type ErpEventOf } from '../contracts/erp-events.js';
import { compact } from './compact.js';
import { salesOrderComplete } from './completion.js';
import { EventRejectedError, unhandledEvent } from './event-rejected.js';
import { alreadyApplied } from './sequence-guard.js';
import { toAddress, toPackage } from './shipment-records.js';
import { removeById, upsertById } from './sorted.js';
import type { LocationState, PackageState, ShipmentsState } from './state.js';

const locationIdOf = (l: LocationState): number => l.locationId;
const packageIdOf = (p: PackageState): number => p.packageId;

function emptyShipments(event: ErpEvent): ShipmentsState {
  return { clientId: event.clientId, salesOrderNumber: event.salesOrderNumber, sequence: 0, completedAsWhole: false, complete: false, locations: [] };
}

/** The state after an applied event: its sequence, and `complete` derived again. */
function applied(state: ShipmentsState, event: ErpEvent, changes: Partial<ShipmentsState>): ShipmentsState {
  const next = { ...state, ...changes, sequence: event.sequence };
  return { ...next, complete: salesOrderComplete(next) };
}

/** The state and its location `locationId`; an event about a location never recorded is rejected. */
function recordedLocation(
  state: ShipmentsState | undefined,
  event: ErpEvent,
  locationId: number,
): { current: ShipmentsState; location: LocationState } {
  const location = state?.locations.find((l) => l.locationId === locationId);
  if (!state || !location) {
    throw new EventRejectedError(`unknown location ${locationId} for sales order ${eventKey(event.clientId, event.salesOrderNumber)}`);
  }
  return { current: state, location };
}

function withLocation(state: ShipmentsState, location: LocationState): LocationState[] {
  return upsertById(state.locations, location, locationIdOf);
}

/**
 * Shipment events do not carry the purchase order number, so it is learnt here. A status change
 * also creates the state, so that a purchase order with a sales order not yet shipping is not
 * complete. When the number is unchanged nothing is to be written: the same state is returned.
 */
function onStatusChanged(state: ShipmentsState | undefined, event: ErpEventOf<'SalesOrderStatusChanged'>): ShipmentsState {
  const { purchaseOrderNumber } = event.data;
  if (state && state.purchaseOrderNumber === purchaseOrderNumber) return state;
  const { purchaseOrderNumber: _previous, ...rest } = state ?? emptyShipments(event);
  return applied(rest, event, compact({ purchaseOrderNumber }));
}

/**
 * Replaces the addresses, destination type and customer pickup and keeps packages and complete flag. A location
 * recorded after a whole completion starts incomplete, yet the sales order stays complete
 * (completedAsWhole): the ERP declared the order shipped, and a later location does not undo that.
 */
function onLocationRecorded(state: ShipmentsState | undefined, event: ErpEventOf<'ShipmentLocationRecorded'>): ShipmentsState {
  const current = state ?? emptyShipments(event);
  const { data } = event;
  const previous = current.locations.find((l) => l.locationId === data.locationId);
  const location: LocationState = compact({
    locationId: data.locationId,
    complete: previous?.complete ?? false,
    customerPickup: data.customerPickup,
    shipFrom: toAddress(data.shipFrom),
    shipTo: toAddress(data.shipTo),
    shipmentDestinationType: data.shipmentDestinationType,
    packages: previous?.packages ?? [],
  });
  return applied(current, event, { locations: withLocation(current, location) });
}

function onPackageShipped(state: ShipmentsState | undefined, event: ErpEventOf<'PackageShipped'>): ShipmentsState {
  const { current, location } = recordedLocation(state, event, event.data.locationId);
  const packages = upsertById(location.packages, toPackage(event.data), packageIdOf);
  return applied(current, event, { locations: withLocation(current, { ...location, packages }) });
}

/** Voiding a package that is not there changes no package but still advances the sequence. */
function onPackageVoided(state: ShipmentsState | undefined, event: ErpEventOf<'PackageVoided'>): ShipmentsState {
  const { current, location } = recordedLocation(state, event, event.data.locationId);
  const { packageId } = event.data;
  if (!location.packages.some((p) => p.packageId === packageId)) return applied(current, event, {});
  const packages = removeById(location.packages, packageId, packageIdOf);
  return applied(current, event, { locations: withLocation(current, { ...location, packages }) });
}

function onShipmentCompleted(state: ShipmentsState | undefined, event: ErpEventOf<'ShipmentCompleted'>): ShipmentsState {
  const { locationId } = event.data;
  if (locationId !== undefined) {
    const { current, location } = recordedLocation(state, event, locationId);
    return applied(current, event, { locations: withLocation(current, { ...location, complete: true }) });
  }
  const current = state ?? emptyShipments(event);
  return applied(current, event, {
    completedAsWhole: true,
    locations: current.locations.map((l) => (l.complete ? l : { ...l, complete: true })),
  });
}

/**
 * The shipments read model of one sales order after `event`. Returns `state` itself (same
 * reference) when nothing changes: a duplicate, a replay, or an event that does not concern it.
 * Throws EventRejectedError for an event about a location that was never recorded.
 */
export function evolveShipments(state: ShipmentsState | undefined, event: ErpEvent): ShipmentsState | undefined {
  if (alreadyApplied(state, event)) return state;
  switch (event.type) {
    case 'SalesOrderStatusChanged':
      return onStatusChanged(state, event);
    case 'ShipmentLocationRecorded':
      return onLocationRecorded(state, event);
    case 'PackageShipped':
      return onPackageShipped(state, event);
    case 'PackageVoided':
      return onPackageVoided(state, event);
    case 'ShipmentCompleted':
      return onShipmentCompleted(state, event);
    // Contract v2's order details are the order-status model's: here they are not applied, so the
    // sequence stays where the last event applied here left it.
    case 'IssueRecorded':
    case 'SalesOrderLinesRecorded':
    case 'OrderContactsRecorded':
      return state;
    default:
      return unhandledEvent(event);
  }
}
