// The fields that 1.0.0 answers, by name: its lookups read (inclusive projections) and copy
// (lookups/answers-v1.ts) these alone, so that fields contract v2 adds beside them in the same
// documents and objects (oss-osn-2.0.0.md §5, §6) never reach a 1.0.0 answer.

export const v1AddressFields = ['address1', 'address2', 'address3', 'address4', 'city', 'region', 'postalCode', 'country'] as const;
export const v1ItemFields = ['supplierProductId', 'supplierPartId', 'distributorProductId', 'distributorPartId', 'purchaseOrderLineNumber', 'quantity'] as const;
export const v1PackageFields = [
  'packageId',
  'trackingNumber',
  'shipmentDate',
  'carrier',
  'shipmentMethod',
  'shippingAccount',
  'shipmentTerms',
  'dimUOM',
  'length',
  'width',
  'height',
  'weightUOM',
  'weight',
] as const;
export const v1StatusFields = ['purchaseOrderNumber', 'statusId', 'expectedShipDate', 'expectedDeliveryDate', 'responseRequired', 'validTimestamp'] as const;

const included = (prefix: string, fields: readonly string[]) => Object.fromEntries(fields.map((field) => [`${prefix}${field}`, 1 as const]));

/** An order-status document as the 1.0.0 lookups read it (with its 1.0.0 change time, which queryType 3 orders by). */
export const v1StatusProjection = { _id: 0, clientId: 1, salesOrderNumber: 1, changedAt: 1, ...included('', v1StatusFields) } as const;

/** A shipments document as the 1.0.0 lookups answer it. */
export const v1ShipmentsProjection = {
  _id: 0,
  clientId: 1,
  salesOrderNumber: 1,
  purchaseOrderNumber: 1,
  complete: 1,
  'locations.locationId': 1,
  'locations.complete': 1,
  'locations.shipmentDestinationType': 1,
  ...included('locations.shipFrom.', v1AddressFields),
  ...included('locations.shipTo.', v1AddressFields),
  ...included('locations.packages.', v1PackageFields),
  ...included('locations.packages.items.', v1ItemFields),
} as const;

/** The named fields of `from` that it holds (absent ones stay absent), in the order named. */
export function picked<T extends object, K extends keyof T>(from: T, fields: readonly K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const field of fields) if (from[field] !== undefined) out[field] = from[field];
  return out;
}
