// The statusID table of PromoStandards Order Status 1.0.0 (GetOrderStatusTypesResponse.xsd).
// getOrderStatusTypes answers exactly this table; the contract's statusId enum is built from it.

export const statusTypes = [
  { statusId: 10, statusName: 'Order Received' },
  { statusId: 11, statusName: 'Order Entry Hold' },
  { statusId: 20, statusName: 'Order Confirmed' },
  { statusId: 30, statusName: 'Pre-Production' },
  { statusId: 40, statusName: 'General Hold' },
  { statusId: 41, statusName: 'Credit Hold' },
  { statusId: 42, statusName: 'Proof Hold' },
  { statusId: 43, statusName: 'Art Hold' },
  { statusId: 44, statusName: 'Back Order Hold' },
  { statusId: 60, statusName: 'In Production' },
  { statusId: 70, statusName: 'In Storage' },
  { statusId: 75, statusName: 'Partial Shipment' },
  { statusId: 80, statusName: 'Complete' },
  { statusId: 99, statusName: 'Canceled' },
] as const;

export type StatusId = (typeof statusTypes)[number]['statusId'];
export type StatusName = (typeof statusTypes)[number]['statusName'];

export const statusIds: readonly StatusId[] = statusTypes.map((s) => s.statusId);

export const completeStatusId = 80;
export const canceledStatusId = 99;

const names = new Map<number, StatusName>(statusTypes.map((s) => [s.statusId, s.statusName]));

export function statusName(statusId: StatusId): StatusName;
export function statusName(statusId: number): StatusName | undefined;
export function statusName(statusId: number): StatusName | undefined {
  return names.get(statusId);
}

/** An order is open while it is neither complete (80) nor canceled (99). */
export function isOpen(statusId: StatusId): boolean {
  return statusId !== completeStatusId && statusId !== canceledStatusId;
}
