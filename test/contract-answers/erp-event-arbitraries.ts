// fast-check arbitraries for ERP event streams as an ERP may send them under contract v1: every
// field within its schema's type, length and range, at its edges on purpose (longest strings, empty
// and blank strings, characters XML cannot carry, the first and last instants the date-time format
// can write, every offset, numbers from the smallest subnormal to the largest double). Whether the
// contract accepts each event is the parser's call, not the generator's.
import fc from 'fast-check';
import {
  dimUOMs,
  schemaVersion,
  shipmentDestinationTypes,
  weightUOMs,
  type Address,
  type ErpEvent,
  type ErpEventOf,
  type ErpEventType,
  type PackageItem,
} from '../../contracts/erp-event-schema.js';
import { statusIds } from '../../contracts/status-types.js';

/** The clients the answering credential is linked to; which client owns what is not under test here. */
export const clientIds = ['C1', 'C2'] as const;

// XML's specials and the characters it cannot carry (controls, U+FFFE, lone surrogates), white space
// of every kind, a combining mark, an astral character.
const edgeCharacters = [
  '&', '<', '>', '"', "'", ']]>', '\r', '\n', '\t', ' ', '\u0000', '\u0008', '\u000b', '\u001f', '\u007f', '\u0085',
  '\u00a0', '\u2028', '\u3000', '\ufeff', '\ufffe', '\uffff', '\ud800', '\udfff', 'e\u0301', '\u{1f600}', '\u4e2d',
];

const character = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.constantFrom(...edgeCharacters) },
);

/** Empty, or white space only: what the contract reads as absent, or refuses where a value is required. */
const blank = (maxLength: number) => fc.constantFrom('', ' ', '\t', '\r\n', '\u00a0', '\u3000', ' '.repeat(maxLength));

/**
 * A string of at most `maxLength` UTF-16 code units (what the schema counts): any, or at the maximum
 * (a surrogate pair cut there leaves a lone surrogate, an edge of its own), and blank once in
 * `blankOdds` on average.
 */
function text(maxLength: number, blankOdds: number): fc.Arbitrary<string> {
  const filled = fc.oneof(
    { weight: 3, arbitrary: fc.string({ unit: character, minLength: 1, maxLength }) },
    { weight: 1, arbitrary: fc.string({ unit: character, minLength: maxLength, maxLength }) },
  );
  return fc.oneof({ weight: blankOdds - 1, arbitrary: filled }, { weight: 1, arbitrary: blank(maxLength) }).map((value) => value.slice(0, maxLength));
}

// An address has eight required strings: blank ones are kept rare so that most locations are
// accepted, while a whole test run still meets many.
const requiredText = (maxLength: number) => text(maxLength, 150);
const optionalText = (maxLength: number) => text(maxLength, 15);
/** Optional enumerations, sometimes blank: outside their type, as an ERP may send them, and read as absent. */
const optionalChoice = <T extends string>(values: readonly T[]) =>
  fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...values) }, blank(1)) as fc.Arbitrary<T>;

/** Ids: mostly small, so that events refer to the same locations and packages, and the largest the contract allows. */
const id = fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 1, max: 4 }) }, { weight: 1, arbitrary: fc.constantFrom(5, Number.MAX_SAFE_INTEGER) });

/** A value once in `oneIn` on average, else undefined. */
const sometimes = <T>(value: fc.Arbitrary<T>, oneIn: number) =>
  fc.oneof({ weight: oneIn - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: value });

/** Any finite double (JSON has no other), -0 and subnormals included. */
const decimal = fc.double({ noNaN: true, noDefaultInfinity: true });

const two = (n: number) => String(n).padStart(2, '0');
const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const daysIn = (year: number, month: number) => (month === 2 ? (isLeap(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31);

/** An offset the date-time format admits: Z, z, or ±hh:mm up to ±23:59. */
const anyOffset = fc.oneof(
  fc.constantFrom('Z', 'z', '+00:00', '-00:00'),
  fc.tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 })).map(([sign, h, m]) => `${sign}${two(h)}:${two(m)}`),
);
const utcOffset = fc.constantFrom('Z', 'z', '+00:00', '-00:00');

/** An RFC 3339 date-time as the contract's format reads it: years 0000 to 9999, t or T, 0 to 9 fraction digits. */
function dateTime(offset: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc
    .record({
      // The first and last years the format can write, often: the answers cannot write them all.
      year: fc.oneof({ weight: 12, arbitrary: fc.integer({ min: 0, max: 9999 }) }, { weight: 1, arbitrary: fc.constantFrom(0, 1, 9999) }),
      month: fc.integer({ min: 1, max: 12 }),
      day: fc.integer({ min: 1, max: 31 }),
      hour: fc.integer({ min: 0, max: 23 }),
      minute: fc.integer({ min: 0, max: 59 }),
      second: fc.integer({ min: 0, max: 59 }),
      fraction: fc.option(fc.stringMatching(/^\.\d{1,9}$/), { nil: '' }),
      t: fc.constantFrom('T', 't'),
      offset,
    })
    .map(({ year, month, day, hour, minute, second, fraction, t, offset }) => {
      const date = `${String(year).padStart(4, '0')}-${two(month)}-${two(Math.min(day, daysIn(year, month)))}`;
      return `${date}${t}${two(hour)}:${two(minute)}:${two(second)}${fraction}${offset}`;
    });
}

const address: fc.Arbitrary<Address> = fc.record(
  {
    address1: requiredText(64),
    address2: optionalText(64),
    address3: optionalText(64),
    address4: optionalText(64),
    city: requiredText(64),
    region: requiredText(2),
    postalCode: requiredText(10),
    country: optionalText(128),
  },
  { requiredKeys: ['address1', 'city', 'region', 'postalCode'] },
);

const item: fc.Arbitrary<PackageItem> = fc.record(
  {
    supplierProductId: optionalText(64),
    supplierPartId: optionalText(64),
    distributorProductId: optionalText(64),
    distributorPartId: optionalText(64),
    purchaseOrderLineNumber: optionalText(64),
    quantity: decimal,
  },
  { requiredKeys: [] },
);

// Built with record and map only, never chain, so that fast-check shrinks a failing stream to a
// small one: fewer sales orders, locations, packages, shorter strings.

type Data<T extends ErpEventType> = ErpEventOf<T>['data'];
/** One event of a sales order without the fields that all its events share. */
type Step = { [T in ErpEventType]: { type: T; occurredAt: string; data: Data<T> } }[ErpEventType];

const statusDraft = fc.record({
  occurredAt: dateTime(anyOffset),
  // One of the stream's numbers (by index, so that sales orders share them), its own, or none.
  purchaseOrder: fc.oneof(
    { weight: 4, arbitrary: fc.nat({ max: 2 }) },
    { weight: 1, arbitrary: optionalText(64) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  ),
  data: fc.record(
    {
      statusId: fc.constantFrom(...statusIds),
      expectedShipDate: dateTime(anyOffset),
      expectedDeliveryDate: dateTime(anyOffset),
      responseRequired: fc.boolean(),
    },
    { requiredKeys: ['statusId'] },
  ),
});

const locationData = fc.record(
  { shipFrom: address, shipTo: address, shipmentDestinationType: optionalChoice(shipmentDestinationTypes) },
  { requiredKeys: ['shipFrom', 'shipTo'] },
);

const packageData = fc.record(
  {
    trackingNumber: requiredText(128),
    shipmentDate: dateTime(utcOffset),
    carrier: optionalText(200),
    shipmentMethod: optionalText(128),
    shippingAccount: optionalText(128),
    shipmentTerms: optionalText(128),
    dimUOM: optionalChoice(dimUOMs),
    length: decimal,
    width: decimal,
    height: decimal,
    weightUOM: optionalChoice(weightUOMs),
    weight: decimal,
    items: fc.array(item, { maxLength: 4 }),
  },
  { requiredKeys: ['trackingNumber', 'shipmentDate'] },
);

/** A package, shipped at occurredAt and voided at voidedAt when that is given. */
const packageDraft = fc.record({
  occurredAt: dateTime(anyOffset),
  data: packageData,
  voidedAt: sometimes(dateTime(anyOffset), 5),
});

/** Most locations hold a few packages, some a great many (numbered 1 to n). */
const packageDrafts = fc.oneof(
  { weight: 5, arbitrary: fc.uniqueArray(fc.record({ packageId: id, draft: packageDraft }), { maxLength: 4, selector: (p) => p.packageId }) },
  { weight: 1, arbitrary: fc.array(packageDraft, { minLength: 20, maxLength: 60 }).map((drafts) => drafts.map((draft, i) => ({ packageId: i + 1, draft }))) },
);

/** A location, recorded once or twice (the second replaces the first), with its packages, perhaps completed. */
const locationDraft = fc.record({
  locationId: id,
  recorded: fc.array(fc.record({ occurredAt: dateTime(anyOffset), data: locationData }), { minLength: 1, maxLength: 2 }),
  packages: packageDrafts,
  completedAt: sometimes(dateTime(anyOffset), 2),
});

const salesOrderDraft = fc.record({
  clientId: fc.constantFrom(...clientIds),
  salesOrderNumber: requiredText(64),
  // 1, or close enough to the largest safe integer that the sequences end near it.
  firstSequence: fc.oneof(fc.constant(1), fc.constant(Number.MAX_SAFE_INTEGER - 400), fc.integer({ min: 1, max: 1_000_000 })),
  statuses: fc.array(statusDraft, { minLength: 1, maxLength: 3 }),
  locations: fc.uniqueArray(locationDraft, { maxLength: 3, selector: (l) => l.locationId }),
  completedAsWholeAt: sometimes(dateTime(anyOffset), 4),
});

type SalesOrderDraft = typeof salesOrderDraft extends fc.Arbitrary<infer T> ? T : never;

function locationSteps({ locationId, recorded, packages, completedAt }: SalesOrderDraft['locations'][number]): Step[] {
  return [
    ...recorded.map(({ occurredAt, data }): Step => ({ type: 'ShipmentLocationRecorded', occurredAt, data: { locationId, ...data } })),
    ...packages.map(({ packageId, draft }): Step => ({ type: 'PackageShipped', occurredAt: draft.occurredAt, data: { locationId, packageId, ...draft.data } })),
    ...packages.flatMap(({ packageId, draft }): Step[] =>
      draft.voidedAt === undefined ? [] : [{ type: 'PackageVoided', occurredAt: draft.voidedAt, data: { locationId, packageId } }],
    ),
    ...(completedAt === undefined ? [] : [{ type: 'ShipmentCompleted', occurredAt: completedAt, data: { locationId } } as Step]),
  ];
}

/** A sales order's events in the order the ERP publishes them: a status, the locations, perhaps a whole completion, later statuses. */
function salesOrderEvents(draft: SalesOrderDraft, index: number, purchaseOrderNumbers: string[]): ErpEvent[] {
  const [first, ...later] = draft.statuses.map(({ occurredAt, purchaseOrder, data }): Step => {
    const purchaseOrderNumber = typeof purchaseOrder === 'number' ? purchaseOrderNumbers[purchaseOrder % purchaseOrderNumbers.length] : purchaseOrder;
    return { type: 'SalesOrderStatusChanged', occurredAt, data: purchaseOrderNumber === undefined ? data : { purchaseOrderNumber, ...data } };
  });
  const steps: Step[] = [
    first as Step,
    ...draft.locations.flatMap(locationSteps),
    ...(draft.completedAsWholeAt === undefined ? [] : [{ type: 'ShipmentCompleted', occurredAt: draft.completedAsWholeAt, data: {} } as Step]),
    ...later,
  ];
  const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
  return steps.map(
    ({ type, occurredAt, data }, i) =>
      ({
        // Unique in the stream; nothing reads more into an eventId.
        eventId: `${hex(index, 8)}-0000-4000-8000-${hex(i, 12)}`,
        type,
        schemaVersion,
        clientId: draft.clientId,
        salesOrderNumber: draft.salesOrderNumber,
        sequence: draft.firstSequence + i,
        occurredAt,
        data,
      }) as ErpEvent,
  );
}

/**
 * The events of one to four sales orders (of two clients, sharing up to three purchase order
 * numbers), each sales order's events in order. Sales orders of one client have different numbers.
 */
export const erpEventStreams: fc.Arbitrary<ErpEvent[]> = fc
  .record({
    purchaseOrderNumbers: fc.uniqueArray(optionalText(64), { minLength: 1, maxLength: 3 }),
    salesOrders: fc.uniqueArray(salesOrderDraft, { minLength: 1, maxLength: 4, selector: (so) => `${so.clientId}:${so.salesOrderNumber}` }),
  })
  .map(({ purchaseOrderNumbers, salesOrders }) => salesOrders.flatMap((so, i) => salesOrderEvents(so, i, purchaseOrderNumbers)));
