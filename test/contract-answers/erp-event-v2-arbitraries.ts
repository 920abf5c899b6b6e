// fast-check arbitraries for ERP event streams under contract v2 (oss-osn-2.0.0.md §5): the v1
// streams of erp-event-arbitraries.ts (holds among the statuses, long and blank address parts,
// items without ids or quantity, locations without packages, many packages) with contract v2
// woven in: v2 fields on events of every v1 type (schemaVersion 2 on those), odd countries (alpha-3,
// `UK`, lower case, codes the XSD list lacks, names), and IssueRecorded (Open, Pending, Closed, ids
// repeated), SalesOrderLinesRecorded and OrderContactsRecorded events between a sales order's
// events, before its first status too. Each sales order's sequences are renumbered in the merged
// order. Every string at its edges: longest, blank once in a while (a blank v2 string makes the
// event bad: refused), XML's specials and characters it cannot carry.
import fc from 'fast-check';
import type { ErpEvent } from '../../contracts/erp-event-schema.js';
import { eventKey } from '../../contracts/transport.js';
import { contactTypes, issueCategories, issueStatuses, preProductionProofs, quantityUoms, statusWords } from '../../contracts/v2-vocabulary.js';
import { erpEventStreams } from './erp-event-arbitraries.js';

const edgeCharacters = ['&', '<', '>', '"', ']]>', '\r', '\n', '\t', ' ', '\u0000', '\u001f', '\u00a0', '\u3000', '\ufffe', '\ud800', 'e\u0301', '\u{1f600}', '\u4e2d'];
const character = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.constantFrom(...edgeCharacters) },
);

/** A v2 string of at most `maxLength` UTF-16 units: any, at the maximum, or (once in 40) blank, which the contract refuses. */
function text(maxLength: number): fc.Arbitrary<string> {
  return fc
    .oneof(
      { weight: 30, arbitrary: fc.string({ unit: character, minLength: 1, maxLength: Math.min(maxLength, 40) }) },
      { weight: 9, arbitrary: fc.string({ unit: character, minLength: maxLength, maxLength }) },
      { weight: 1, arbitrary: fc.constantFrom('', ' ', '\t\n') },
    )
    .map((value) => value.slice(0, maxLength));
}

const optional = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: undefined, freq: 2 });
const two = (n: number) => String(n).padStart(2, '0');
const dateTime = fc
  .record({
    year: fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 1990, max: 2100 }) }, { weight: 1, arbitrary: fc.constantFrom(1, 9999) }),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 28 }),
    hour: fc.integer({ min: 0, max: 23 }),
    offset: fc.constantFrom('Z', '+14:00', '-12:00', '+05:30'),
  })
  .map(({ year, month, day, hour, offset }) => `${String(year).padStart(4, '0')}-${two(month)}-${two(day)}T${two(hour)}:00:00${offset}`);

/** Countries as ERPs send them: the XSD's list, alpha-3, `UK`, lower case, padded, codes it lacks, names, junk. */
const country = fc.constantFrom('US', 'GB', 'USA', 'UK', 'GBR', 'deu', ' ca ', 'RS', 'ME', 'SS', 'XX', 'Germany', 'United States of America', '1');
const contactCountry = fc.constantFrom('US', 'DE', 'RS', 'XX', 'AN', 'UK');
const quantity = fc.record({
  value: fc.oneof(fc.double({ min: 0, noNaN: true, noDefaultInfinity: true }), fc.constantFrom(0, 1, 12, 1e21, 5e-324, 123456789.125)),
  uom: fc.constantFrom(...quantityUoms),
});

/** A small pool of issue ids, so that issues are recorded again (updated) and shared between sales orders. */
const issueId = fc.oneof({ weight: 6, arbitrary: fc.constantFrom('ISS-1', 'ISS-2', 'ISS-3', 'I'.repeat(64)) }, { weight: 1, arbitrary: text(64) });

const issueData = fc.record(
  {
    issueId,
    issueStatus: fc.constantFrom(...issueStatuses),
    issueCategory: fc.constantFrom(...issueCategories),
    issueName: text(64),
    urgentResponseRequired: fc.boolean(),
    issueDescription: text(1024),
    responseRequiredBy: dateTime,
    issueResolutionURL: text(1024),
    productId: text(64),
    partId: text(64),
  },
  { requiredKeys: ['issueId', 'issueStatus', 'issueCategory'] },
);

const line = fc.record(
  {
    salesOrderLineNumber: fc.oneof(fc.constantFrom('1', '2', '3'), text(64)),
    productId: text(64),
    partId: text(64),
    purchaseOrderLineNumber: fc.oneof(fc.constantFrom('1', '2147483648', '007'), text(64)),
    quantityOrdered: quantity,
    quantityShipped: quantity,
    status: fc.constantFrom(...statusWords),
    issueCategory: fc.constantFrom(...issueCategories),
  },
  { requiredKeys: ['salesOrderLineNumber', 'productId', 'quantityOrdered'] },
);

const contact = fc.record(
  {
    contactType: fc.constantFrom(...contactTypes),
    accountName: text(64),
    accountNumber: text(64),
    attentionTo: text(35),
    companyName: text(35),
    address1: text(35),
    address2: text(35),
    address3: text(35),
    city: text(30),
    region: text(3),
    postalCode: text(10),
    country: contactCountry,
    email: text(128),
    phone: text(32),
    comments: text(1024),
  },
  { requiredKeys: ['contactType'] },
);

/** A contract v2 event to insert: its type and data. */
const newEvent = fc.oneof(
  { weight: 3, arbitrary: issueData.map((data) => ({ type: 'IssueRecorded' as const, data })) },
  { weight: 2, arbitrary: fc.array(line, { maxLength: 4 }).map((lines) => ({ type: 'SalesOrderLinesRecorded' as const, data: { lines } })) },
  { weight: 2, arbitrary: fc.array(contact, { maxLength: 3 }).map((contacts) => ({ type: 'OrderContactsRecorded' as const, data: { contacts } })) },
);

const addressExtras = fc.record(
  { attentionTo: text(35), companyName: text(35), email: text(128), phone: text(32), regionV2: text(3), country },
  { requiredKeys: [] },
);

/** What contract v2 adds to one event of each v1 type; `upgrade` false leaves the event as v1 sent it. */
const extras = fc.record({
  upgrade: fc.boolean(),
  status: fc.record({ statusV2: fc.constantFrom(...statusWords), additionalExplanation: text(1024), qualityProofURL: text(1024) }, { requiredKeys: [] }),
  location: fc.record({ customerPickup: fc.boolean(), shipFrom: addressExtras, shipTo: addressExtras }, { requiredKeys: [] }),
  package: fc.record(
    {
      carrierService: text(64),
      preProductionProof: fc.constantFrom(...preProductionProofs),
      uoms: fc.array(optional(fc.constantFrom(...quantityUoms)), { maxLength: 4 }),
      // OSN 2.1.0's label references: no 2.0.0 answer shows them, so they must leave its answers valid as they are.
      shipReferences: fc.array(text(64), { maxLength: 4 }),
    },
    { requiredKeys: [] },
  ),
});

type Json = Record<string, unknown>;
type Extras = typeof extras extends fc.Arbitrary<infer T> ? T : never;

/** The event with the v2 fields of `x` added (the country replaces v1's, which is a v1 field of any text). */
function upgraded(event: ErpEvent, x: Extras): Json {
  if (!x.upgrade) return event as unknown as Json;
  const data = event.data as Json;
  const v2 = (d: Json) => ({ ...event, schemaVersion: 2, data: d });
  switch (event.type) {
    case 'SalesOrderStatusChanged':
      return v2({ ...data, ...x.status });
    case 'ShipmentLocationRecorded': {
      const { shipFrom = {}, shipTo = {}, ...rest } = x.location;
      return v2({ ...data, ...rest, shipFrom: { ...(data['shipFrom'] as Json), ...shipFrom }, shipTo: { ...(data['shipTo'] as Json), ...shipTo } });
    }
    case 'PackageShipped': {
      const { uoms = [], ...rest } = x.package;
      const items = data['items'] as Json[] | undefined;
      return v2({ ...data, ...rest, ...(items ? { items: items.map((item, i) => (uoms[i] ? { ...item, uom: uoms[i] } : item)) } : {}) });
    }
    default:
      return v2(data);
  }
}

/**
 * The v1 stream with v2 woven in: each event upgraded by the extras at its index (cyclically), the
 * new events put before the event at their index, in that event's sales order; each sales order's
 * sequences then run from its first one up in the merged order. Events as sent (JSON values), for
 * the contract's parser to read.
 */
function weave(stream: ErpEvent[], allExtras: Extras[], inserts: { at: number; event: { type: string; data: unknown } }[]): Json[] {
  const merged: Json[] = [];
  stream.forEach((event, i) => {
    for (const insert of inserts.filter((x) => x.at % stream.length === i)) {
      merged.push({ eventId: '', type: insert.event.type, schemaVersion: 2, clientId: event.clientId, salesOrderNumber: event.salesOrderNumber, sequence: 0, occurredAt: event.occurredAt, data: insert.event.data });
    }
    merged.push(upgraded(event, allExtras[i % allExtras.length]!));
  });
  const first = new Map<string, number>();
  const next = new Map<string, number>();
  for (const event of stream) if (!first.has(eventKey(event.clientId, event.salesOrderNumber))) first.set(eventKey(event.clientId, event.salesOrderNumber), event.sequence);
  return merged.map((event, i) => {
    const key = eventKey(event['clientId'] as string, event['salesOrderNumber'] as string);
    const sequence = next.get(key) ?? first.get(key)!;
    next.set(key, sequence + 1);
    return { ...event, eventId: `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`, sequence };
  });
}

/** Event streams under contract v2 as an ERP may send them (see the top of this file), as JSON values. */
export const erpEventStreamsV2: fc.Arbitrary<Json[]> = fc
  .record({
    stream: erpEventStreams,
    extras: fc.array(extras, { minLength: 1, maxLength: 8 }),
    inserts: fc.array(fc.record({ at: fc.nat(), event: newEvent }), { maxLength: 10 }),
  })
  .map(({ stream, extras: allExtras, inserts }) => weave(stream, allExtras, inserts));
