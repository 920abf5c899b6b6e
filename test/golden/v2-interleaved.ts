// The golden stream with contract v2 content woven in (E), and v1(E): the stream a 1.0.0 reader
// would have been sent (oss-osn-2.0.0.md §1). E carries v2 fields on some events of every v1 type
// (schemaVersion 2 on those) and IssueRecorded, SalesOrderLinesRecorded and OrderContactsRecorded
// events between a sales order's events, one of them before its first status and one sales order
// known from such events alone. To make room for them each sales order's sequences are
// renumbered (s becomes 10 s, inserted events take the numbers just below), which v1(E) keeps:
// v1(E) is E less the new event types and the new fields, each event back at schemaVersion 1.
// New events only come before a sales order's last golden event, so the sales orders' last events
// keep their order (the golden test writes sales orders in that order, which queryType 3 answers by).
import type { TSchema } from '@sinclair/typebox';
import { erpEventTypesV1, eventSchemasV1, type ErpEvent, type ErpEventTypeV1 } from '../../contracts/erp-event-schema.js';
import { parseErpEvent } from '../../contracts/parse-erp-event.js';
import { eventKey } from '../../contracts/transport.js';

type Json = Record<string, unknown>;
/** An event as sent, before the contract reads it. */
type Sent = Json & { type: string; clientId: string; salesOrderNumber: string; sequence: number; data: Json };

/** The sales order that only contract v2 events mention: no status, so never answerable. */
export const V2_ONLY_SALES_ORDER = { clientId: 'CLIENT-001', salesOrderNumber: 'SO-V2-ONLY' } as const;

const statusWordsToTry = ['shipped', 'complete', 'received', 'inStorage', 'canceled'] as const;

const contacts = (so: string) => [
  {
    contactType: 'Order',
    accountName: `Account of ${so}`,
    accountNumber: `ACC-${so}`,
    attentionTo: 'Pat Buyer',
    companyName: 'Buyer & Sons',
    address1: '12 Market St',
    city: 'Springfield',
    region: 'IL',
    postalCode: '62701',
    country: 'US',
    email: 'pat@buyer.example',
    phone: '+1 555 0100',
    comments: 'Call before noon <please>',
  },
  { contactType: 'Bill', companyName: 'Buyer Accounts' },
];

const lines = (so: string, shipped: boolean) => [
  {
    salesOrderLineNumber: '1',
    productId: `PRD-${so}`,
    partId: `PRD-${so}-RED`,
    purchaseOrderLineNumber: '10',
    quantityOrdered: { value: 120, uom: 'EA' },
    ...(shipped ? { quantityShipped: { value: 10, uom: 'DZ' }, status: 'shipped' } : {}),
  },
  { salesOrderLineNumber: '2', productId: 'MUG-11OZ', quantityOrdered: { value: 2.5, uom: 'CA' }, issueCategory: 'artHold' },
];

const issue = (issueId: string, issueStatus: string, issueCategory: string) => ({
  issueId,
  issueStatus,
  issueCategory,
  issueName: `Issue ${issueId}`,
  urgentResponseRequired: issueStatus === 'Open',
  issueDescription: 'Artwork & proof need a look',
  responseRequiredBy: '2026-10-20T17:00:00-05:00',
  issueResolutionURL: `https://supplier.example.com/issues/${issueId}`,
  productId: 'MUG-11OZ',
});

type Insert = { type: 'IssueRecorded' | 'SalesOrderLinesRecorded' | 'OrderContactsRecorded'; data: Json };

/** The new events to put before the n-th (0-based) of a sales order's N golden events; k numbers the sales order. */
function insertsBefore(k: number, so: string, n: number, count: number): Insert[] {
  const inserts: Insert[] = [];
  if (k % 4 === 0 && n === 0) inserts.push({ type: 'OrderContactsRecorded', data: { contacts: contacts(so) } });
  if (k % 2 === 0 && n === 1) {
    inserts.push({ type: 'IssueRecorded', data: issue(`ISS-${so}-A`, 'Open', 'artHold') });
    inserts.push({ type: 'SalesOrderLinesRecorded', data: { lines: lines(so, false) } });
  }
  if (k % 2 === 1 && n === Math.floor(count / 2)) inserts.push({ type: 'IssueRecorded', data: issue(`ISS-${so}-P`, 'Pending', 'creditHold') });
  if (k % 3 === 0 && count >= 3 && n === count - 1) {
    inserts.push({ type: 'IssueRecorded', data: { ...issue(`ISS-${so}-A`, 'Closed', 'artHold'), urgentResponseRequired: false } });
    inserts.push({ type: 'IssueRecorded', data: issue(`ISS-${so}-B`, 'Pending', 'shippingHold') });
    inserts.push({ type: 'SalesOrderLinesRecorded', data: { lines: lines(so, true) } });
    inserts.push({ type: 'OrderContactsRecorded', data: { contacts: k % 2 === 0 ? [] : contacts(so).slice(1) } });
  }
  return inserts;
}

const addressV2 = (address: Json, who: string) => ({
  ...address,
  attentionTo: `${who} Desk`,
  companyName: `${who} Logistics`,
  email: `${who.toLowerCase()}@example.com`,
  phone: '+1 555 0199',
  regionV2: 'ONT',
});

/** The event with contract v2 fields added (schemaVersion 2), or as it was when this one is left alone. */
function enriched(event: Sent, k: number, n: number): Sent {
  if ((k + n) % 2 === 1) return event;
  const data = event.data;
  switch (event.type) {
    case 'SalesOrderStatusChanged':
      return {
        ...event,
        schemaVersion: 2,
        data: {
          ...data,
          statusV2: statusWordsToTry[(k + n) % statusWordsToTry.length],
          additionalExplanation: `Status of ${event.salesOrderNumber} explained, step ${n}`,
          qualityProofURL: `https://supplier.example.com/proofs/${event.salesOrderNumber}/${n}`,
        },
      };
    case 'ShipmentLocationRecorded':
      return {
        ...event,
        schemaVersion: 2,
        data: { ...data, customerPickup: k % 4 === 0, shipFrom: addressV2(data['shipFrom'] as Json, 'From'), shipTo: addressV2(data['shipTo'] as Json, 'To') },
      };
    case 'PackageShipped': {
      const items = data['items'] as Json[] | undefined;
      return {
        ...event,
        schemaVersion: 2,
        data: {
          ...data,
          carrierService: 'Ground Saver',
          preProductionProof: n % 3 === 0 ? 'Yes' : 'No',
          ...(items ? { items: items.map((item, i) => (i % 2 === 0 ? { ...item, uom: 'DZ' } : item)) } : {}),
          // OSN 2.1.0's label references, on every other sales order's packages: no 1.0.0 answer shows them.
          ...(k % 2 === 0 ? { shipReferences: [`REF-${event.salesOrderNumber}`, `Dept ${n}`] } : {}),
        },
      };
    }
    default:
      return { ...event, schemaVersion: 2 };
  }
}

let eventIds = 0;
/** A UUID of our own for an inserted event (the golden ones keep theirs). */
const newEventId = () => `00000000-0000-4000-8000-${(++eventIds).toString(16).padStart(12, '0')}`;

function read(sent: Sent[]): ErpEvent[] {
  return sent.map((event) => {
    const parsed = parseErpEvent(JSON.stringify(event));
    if (!parsed.ok) throw new Error(`the contract refuses ${JSON.stringify(event)}: ${parsed.errors.join('; ')}`);
    return parsed.event;
  });
}

/** E: the golden events with contract v2 content woven in (see the top of this file). */
export function withV2Content(golden: ErpEvent[]): ErpEvent[] {
  const events = golden as unknown as Sent[];
  const perSalesOrder = new Map<string, Sent[]>();
  for (const event of events) {
    const key = eventKey(event.clientId, event.salesOrderNumber);
    perSalesOrder.set(key, [...(perSalesOrder.get(key) ?? []), event]);
  }
  const salesOrderIndex = new Map([...perSalesOrder.keys()].map((key, k) => [key, k]));
  const seen = new Map<string, number>();
  const out: Sent[] = [];
  for (const [position, event] of events.entries()) {
    const key = eventKey(event.clientId, event.salesOrderNumber);
    const k = salesOrderIndex.get(key)!;
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    const inserts = insertsBefore(k, event.salesOrderNumber, n, perSalesOrder.get(key)!.length);
    if (inserts.length > 9) throw new Error('at most 9 events fit below 10 s');
    inserts.forEach((insert, i) =>
      out.push({
        eventId: newEventId(),
        type: insert.type,
        schemaVersion: 2,
        clientId: event.clientId,
        salesOrderNumber: event.salesOrderNumber,
        sequence: 10 * event.sequence - (inserts.length - i),
        occurredAt: event['occurredAt'] as string,
        data: insert.data,
      }),
    );
    out.push({ ...enriched(event, k, n), sequence: 10 * event.sequence });
    // Half way through, a sales order that only contract v2 events tell of.
    if (position === Math.floor(events.length / 2)) {
      const { clientId, salesOrderNumber } = V2_ONLY_SALES_ORDER;
      const occurredAt = event['occurredAt'] as string;
      const v2Only: Insert[] = [
        { type: 'OrderContactsRecorded', data: { contacts: contacts(salesOrderNumber) } },
        { type: 'IssueRecorded', data: issue(`ISS-${salesOrderNumber}`, 'Open', 'proofHold') },
        { type: 'SalesOrderLinesRecorded', data: { lines: lines(salesOrderNumber, false) } },
      ];
      v2Only.forEach((e, i) => out.push({ eventId: newEventId(), type: e.type, schemaVersion: 2, clientId, salesOrderNumber, sequence: i + 1, occurredAt, data: e.data }));
    }
  }
  return read(out);
}

type ObjectSchema = TSchema & { type?: string; properties?: Record<string, TSchema>; items?: TSchema };

/** `value` with only what `schema` (of contract v1) names, at every depth. */
function v1Part(value: unknown, schema: ObjectSchema): unknown {
  if (Array.isArray(value)) return value.map((item) => v1Part(item, schema.items as ObjectSchema));
  if (schema.type !== 'object' || !schema.properties || typeof value !== 'object' || value === null) return value;
  const properties = schema.properties;
  return Object.fromEntries(Object.entries(value).flatMap(([name, v]) => (name in properties ? [[name, v1Part(v, properties[name] as ObjectSchema)]] : [])));
}

const isV1Type = (type: string): type is ErpEventTypeV1 => (erpEventTypesV1 as string[]).includes(type);

/** v1(E): E without the new event types and the new fields, sequences kept, as contract v1 (read by the contract). */
export function v1Of(events: ErpEvent[]): ErpEvent[] {
  const sent = events.flatMap((event): Sent[] => {
    if (!isV1Type(event.type)) return [];
    const dataSchema = (eventSchemasV1[event.type] as ObjectSchema).properties!['data'] as ObjectSchema;
    return [{ ...(event as unknown as Sent), schemaVersion: 1, data: v1Part(event.data, dataSchema) as Json }];
  });
  return read(sent);
}
