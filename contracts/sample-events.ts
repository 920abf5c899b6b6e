import type { Address, ErpEventOf, ErpEventType } from './erp-event-schema.js';

// Small valid events for tests: one sales order (C1:SO-9) unless told otherwise.

export const sampleShipFrom: Address = { address1: '1200 Distribution Way', city: 'Carrollton', region: 'TX', postalCode: '75006', country: 'US' };
export const sampleShipTo: Address = { address1: '500 Main St', address2: 'Suite 200', city: 'Denver', region: 'CO', postalCode: '80202' };

type Envelope<T extends ErpEventType> = Omit<ErpEventOf<T>, 'type' | 'data'>;

/** An event of `type` at `sequence`; its eventId is derived from the sequence, its time is 10:00Z that day + sequence minutes. */
export function sampleEvent<T extends ErpEventType>(
  type: T,
  sequence: number,
  data: ErpEventOf<T>['data'],
  envelope: Partial<Envelope<T>> = {},
): ErpEventOf<T> {
  return {
    eventId: `00000000-0000-4000-8000-${String(sequence).padStart(12, '0')}`,
    type,
    schemaVersion: 1,
    clientId: 'C1',
    salesOrderNumber: 'SO-9',
    sequence,
    occurredAt: new Date(Date.UTC(2025, 4, 1, 10, sequence)).toISOString(),
    data,
    ...envelope,
  } as ErpEventOf<T>;
}

export const statusChanged = (sequence: number, data: ErpEventOf<'SalesOrderStatusChanged'>['data'] = { purchaseOrderNumber: 'PO-1', statusId: 20 }) =>
  sampleEvent('SalesOrderStatusChanged', sequence, data);

export const locationRecorded = (sequence: number, locationId: number, data: Partial<ErpEventOf<'ShipmentLocationRecorded'>['data']> = {}) =>
  sampleEvent('ShipmentLocationRecorded', sequence, { locationId, shipFrom: sampleShipFrom, shipTo: sampleShipTo, ...data });

export const packageShipped = (sequence: number, locationId: number, packageId: number, data: Partial<ErpEventOf<'PackageShipped'>['data']> = {}) =>
  sampleEvent('PackageShipped', sequence, {
    locationId,
    packageId,
    trackingNumber: `1Z999AA1012345678${packageId}`,
    shipmentDate: '2025-05-02T15:30:00Z',
    ...data,
  });

export const packageVoided = (sequence: number, locationId: number, packageId: number) =>
  sampleEvent('PackageVoided', sequence, { locationId, packageId });

export const shipmentCompleted = (sequence: number, locationId?: number) =>
  sampleEvent('ShipmentCompleted', sequence, locationId === undefined ? {} : { locationId });
