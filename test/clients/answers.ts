// One comparable form for the answers of the lookups (views) and of SOAP clients (node-soap's
// parsed objects, zeep's serialize_object as JSON): the views' field names, dates as ISO 8601 UTC
// strings with milliseconds, numbers as numbers, absent optional fields absent and empty arrays
// empty. Clients' answers are read strictly: a field the mapping does not know fails the test,
// unless it is null (zeep lists every optional element of the schema, with null when absent).
import type {
  Address,
  OrderStatusDetailView,
  OrderStatusView,
  PackageItem,
  PackageView,
  SalesOrderShipmentView,
  ShipmentLocationView,
  ShipmentNotificationView,
} from '../../contracts/lookup-answers.js';

type Json = Record<string, unknown>;

/** Dates as ISO strings, undefined fields dropped: a view as the comparisons see it. */
export function comparable<T>(value: T): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** A wire object's fields; fails on a non-null field other than `known`. */
function fields(value: unknown, where: string, known: readonly string[]): Json {
  if (!isObject(value)) throw new Error(`${where}: expected an object, got ${JSON.stringify(value)}`);
  const unknown = Object.keys(value).filter((key) => !known.includes(key) && value[key] !== null && value[key] !== undefined);
  if (unknown.length > 0) throw new Error(`${where}: unexpected fields ${unknown.join(', ')}`);
  return value;
}

/** Repeated elements: clients give an array, or a single object when only one is present. */
function list(value: unknown): unknown[] {
  if (value === null || value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** The items inside a wrapper element (e.g. OrderStatusArray.OrderStatus), [] when the wrapper is absent or empty. */
function wrapped(container: Json, wrapper: string, item: string, where: string): unknown[] {
  const inner = container[wrapper];
  if (inner === null || inner === undefined || inner === '') return [];
  return list(fields(inner, `${where}.${wrapper}`, [item])[item]);
}

function present(value: unknown): boolean {
  return value !== null && value !== undefined;
}

function text(value: unknown, where: string): string {
  if (typeof value !== 'string') throw new Error(`${where}: expected a string, got ${JSON.stringify(value)}`);
  return value;
}

function number(value: unknown, where: string): number {
  const n = typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n)) throw new Error(`${where}: expected a number, got ${JSON.stringify(value)}`);
  return n;
}

function bool(value: unknown, where: string): boolean {
  if (typeof value !== 'boolean') throw new Error(`${where}: expected a boolean, got ${JSON.stringify(value)}`);
  return value;
}

function dateTime(value: unknown, where: string): string {
  const date = value instanceof Date ? value : new Date(text(value, where));
  if (Number.isNaN(date.getTime())) throw new Error(`${where}: not a dateTime: ${JSON.stringify(value)}`);
  return date.toISOString();
}

/** Sets `name` on `target` only when the wire value is present. */
function optional<T>(target: Json, name: string, value: unknown, read: (v: unknown, where: string) => T, where: string): void {
  if (present(value)) target[name] = read(value, `${where}.${name}`);
}

// ---- getOrderStatusDetails

const DETAIL_FIELDS = [
  'factoryOrderNumber',
  'statusID',
  'statusName',
  'expectedShipDate',
  'expectedDeliveryDate',
  'ResponseToArray',
  'additionalExplanation',
  'responseRequired',
  'validTimestamp',
] as const;

function statusDetail(value: unknown, where: string): OrderStatusDetailView {
  const wire = fields(value, where, DETAIL_FIELDS);
  const detail: Json = {
    factoryOrderNumber: text(wire['factoryOrderNumber'], `${where}.factoryOrderNumber`),
    statusID: number(wire['statusID'], `${where}.statusID`),
  };
  optional(detail, 'statusName', wire['statusName'], text, where);
  optional(detail, 'expectedShipDate', wire['expectedShipDate'], dateTime, where);
  optional(detail, 'expectedDeliveryDate', wire['expectedDeliveryDate'], dateTime, where);
  optional(detail, 'responseRequired', wire['responseRequired'], bool, where);
  detail['validTimestamp'] = dateTime(wire['validTimestamp'], `${where}.validTimestamp`);
  return detail as unknown as OrderStatusDetailView;
}

/** A GetOrderStatusDetailsResponse as parsed by a client, in the views' form. */
export function statusAnswerFromWire(answer: unknown): OrderStatusView[] {
  if (answer === null || answer === undefined) return [];
  const response = fields(answer, 'response', ['OrderStatusArray', 'errorMessage']);
  return wrapped(response, 'OrderStatusArray', 'OrderStatus', 'response').map((value, i) => {
    const where = `OrderStatus[${i}]`;
    const order = fields(value, where, ['purchaseOrderNumber', 'OrderStatusDetailArray']);
    return {
      purchaseOrderNumber: text(order['purchaseOrderNumber'], `${where}.purchaseOrderNumber`),
      details: wrapped(order, 'OrderStatusDetailArray', 'OrderStatusDetail', where).map((d, j) => statusDetail(d, `${where}.OrderStatusDetail[${j}]`)),
    };
  });
}

// ---- getOrderStatusTypes

/** A GetOrderStatusTypesResponse as parsed by a client: [statusID, name] pairs. */
export function statusTypesFromWire(answer: unknown): Array<[number, string]> {
  const response = fields(answer, 'response', ['StatusArray', 'errorMessage']);
  return wrapped(response, 'StatusArray', 'Status', 'response').map((value, i) => {
    const status = fields(value, `Status[${i}]`, ['id', 'name']);
    return [number(status['id'], `Status[${i}].id`), text(status['name'], `Status[${i}].name`)];
  });
}

// ---- getOrderShipmentNotification

const ADDRESS_FIELDS = ['address1', 'address2', 'address3', 'address4', 'city', 'region', 'postalCode', 'country'] as const;

function address(value: unknown, where: string): Address {
  const wire = fields(value, where, ADDRESS_FIELDS);
  const result: Json = {};
  for (const name of ADDRESS_FIELDS) {
    if (['address1', 'city', 'region', 'postalCode'].includes(name)) result[name] = text(wire[name], `${where}.${name}`);
    else optional(result, name, wire[name], text, where);
  }
  return result as unknown as Address;
}

const ITEM_TEXT_FIELDS = ['supplierProductId', 'supplierPartId', 'distributorProductId', 'distributorPartId', 'purchaseOrderLineNumber'] as const;

function item(value: unknown, where: string): PackageItem {
  const wire = fields(value, where, [...ITEM_TEXT_FIELDS, 'quantity']);
  const result: Json = {};
  for (const name of ITEM_TEXT_FIELDS) optional(result, name, wire[name], text, where);
  optional(result, 'quantity', wire['quantity'], number, where);
  return result as PackageItem;
}

const PACKAGE_TEXT_FIELDS = ['dimUOM', 'weightUOM', 'carrier', 'shipmentMethod', 'shippingAccount', 'shipmentTerms'] as const;
const PACKAGE_NUMBER_FIELDS = ['length', 'width', 'height', 'weight'] as const;

function packageOf(value: unknown, where: string): PackageView {
  const wire = fields(value, where, ['id', 'trackingNumber', 'shipmentDate', ...PACKAGE_TEXT_FIELDS, ...PACKAGE_NUMBER_FIELDS, 'ItemArray']);
  const result: Json = {};
  optional(result, 'id', wire['id'], number, where);
  result['trackingNumber'] = text(wire['trackingNumber'], `${where}.trackingNumber`);
  result['shipmentDate'] = dateTime(wire['shipmentDate'], `${where}.shipmentDate`);
  for (const name of PACKAGE_TEXT_FIELDS) optional(result, name, wire[name], text, where);
  for (const name of PACKAGE_NUMBER_FIELDS) optional(result, name, wire[name], number, where);
  const items = wrapped(wire, 'ItemArray', 'Item', where).map((v, i) => item(v, `${where}.Item[${i}]`));
  if (items.length > 0) result['items'] = items;
  return result as unknown as PackageView;
}

function location(value: unknown, where: string): ShipmentLocationView {
  const wire = fields(value, where, ['id', 'complete', 'ShipFromAddress', 'ShipToAddress', 'shipmentDestinationType', 'PackageArray']);
  const result: Json = {};
  optional(result, 'id', wire['id'], number, where);
  result['complete'] = bool(wire['complete'], `${where}.complete`);
  result['shipFromAddress'] = address(wire['ShipFromAddress'], `${where}.ShipFromAddress`);
  result['shipToAddress'] = address(wire['ShipToAddress'], `${where}.ShipToAddress`);
  optional(result, 'shipmentDestinationType', wire['shipmentDestinationType'], text, where);
  result['packages'] = wrapped(wire, 'PackageArray', 'Package', where).map((v, i) => packageOf(v, `${where}.Package[${i}]`));
  return result as unknown as ShipmentLocationView;
}

function salesOrder(value: unknown, where: string): SalesOrderShipmentView {
  const wire = fields(value, where, ['salesOrderNumber', 'complete', 'ShipmentLocationArray']);
  return {
    salesOrderNumber: text(wire['salesOrderNumber'], `${where}.salesOrderNumber`),
    complete: bool(wire['complete'], `${where}.complete`),
    locations: wrapped(wire, 'ShipmentLocationArray', 'ShipmentLocation', where).map((v, i) => location(v, `${where}.ShipmentLocation[${i}]`)),
  };
}

/** A GetOrderShipmentNotificationResponse as parsed by a client, in the views' form. */
export function shipmentAnswerFromWire(answer: unknown): ShipmentNotificationView[] {
  if (answer === null || answer === undefined) return [];
  const response = fields(answer, 'response', ['OrderShipmentNotificationArray', 'errorMessage']);
  return wrapped(response, 'OrderShipmentNotificationArray', 'OrderShipmentNotification', 'response').map((value, i) => {
    const where = `OrderShipmentNotification[${i}]`;
    const wire = fields(value, where, ['purchaseOrderNumber', 'complete', 'SalesOrderArray']);
    return {
      purchaseOrderNumber: text(wire['purchaseOrderNumber'], `${where}.purchaseOrderNumber`),
      complete: bool(wire['complete'], `${where}.complete`),
      salesOrders: wrapped(wire, 'SalesOrderArray', 'SalesOrder', where).map((v, j) => salesOrder(v, `${where}.SalesOrder[${j}]`)),
    };
  });
}

/** A lookup's shipments as the wire carries them: an empty items list is no ItemArray at all. */
export function comparableShipments(views: ShipmentNotificationView[]): unknown {
  return comparable(
    views.map((n) => ({
      ...n,
      salesOrders: n.salesOrders.map((so) => ({
        ...so,
        locations: so.locations.map((l) => ({
          ...l,
          packages: l.packages.map(({ items, ...p }) => (items && items.length > 0 ? { ...p, items } : p)),
        })),
      })),
    })),
  );
}
