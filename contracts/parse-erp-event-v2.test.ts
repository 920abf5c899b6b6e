import { describe, expect, it } from 'vitest';
import { erpEventTypes } from './erp-event-schema.js';
import { parseErpEvent } from './parse-erp-event.js';
import {
  asV2,
  contactsRecorded,
  issueRecorded,
  linesRecorded,
  locationRecorded,
  packageShipped,
  packageVoided,
  sampleShipFrom,
  shipmentCompleted,
  statusChanged,
} from '../test/fixtures/sample-events.js';

// Contract v2 (oss-osn-2.0.0.md §5): additive; its fields and types need schemaVersion 2, and a
// blank string in any field it adds makes the event bad.

const validV2 = {
  SalesOrderStatusChanged: asV2(
    statusChanged(1, {
      purchaseOrderNumber: 'PO-1',
      statusId: 75,
      expectedShipDate: '2025-05-10T23:59:00-05:00',
      statusV2: 'shipped',
      additionalExplanation: 'Two cartons left on the 9th',
      qualityProofURL: 'https://proofs.example/SO-9',
    }),
  ),
  ShipmentLocationRecorded: asV2(
    locationRecorded(2, 1, {
      customerPickup: true,
      shipTo: { ...sampleShipFrom, attentionTo: 'Receiving', companyName: 'Acme Promo', email: 'dock@acme.example', phone: '+1 303 555 0100', regionV2: 'COL' },
    }),
  ),
  PackageShipped: asV2(
    packageShipped(3, 1, 1, {
      carrier: 'UPS',
      carrierService: 'Ground Saver',
      preProductionProof: 'No',
      items: [{ supplierProductId: 'PC61', quantity: 2, uom: 'DZ' }],
      shipReferences: ['PO 4711', 'Dept 12'],
    }),
  ),
  PackageVoided: asV2(packageVoided(4, 1, 1)),
  ShipmentCompleted: asV2(shipmentCompleted(5)),
  IssueRecorded: issueRecorded(6, {
    issueId: 'ART-17',
    issueStatus: 'Pending',
    issueCategory: 'artHold',
    issueName: 'Logo too thin',
    urgentResponseRequired: true,
    issueDescription: 'The 0.2 pt stroke will not print; please send a bolder logo.',
    responseRequiredBy: '2025-05-06T17:00:00-04:00',
    issueResolutionURL: 'https://erp.example/issues/ART-17',
    productId: 'PC61',
    partId: 'PC61-NAVY-L',
  }),
  SalesOrderLinesRecorded: linesRecorded(7, [
    {
      salesOrderLineNumber: '1',
      productId: 'PC61',
      partId: 'PC61-NAVY-L',
      purchaseOrderLineNumber: '10',
      quantityOrdered: { value: 24, uom: 'EA' },
      quantityShipped: { value: 12.5, uom: 'EA' },
      status: 'partiallyShipped',
      issueCategory: 'backOrderHold',
    },
    { salesOrderLineNumber: '2', productId: 'MUG-11', quantityOrdered: { value: 0, uom: 'BX' } },
  ]),
  OrderContactsRecorded: contactsRecorded(8, [
    {
      contactType: 'Expeditor',
      accountName: 'Acme Promo',
      accountNumber: 'A-100',
      attentionTo: 'Jo Miller',
      companyName: 'Acme Promo',
      address1: '500 Main St',
      address2: 'Suite 200',
      address3: 'Building B',
      city: 'Denver',
      region: 'CO',
      postalCode: '80202',
      country: 'US',
      email: 'jo@acme.example',
      phone: '303-555-0100',
      comments: 'Call before noon',
    },
    { contactType: 'Bill' },
  ]),
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests break events in ways no type allows
function variant(base: object, change: (event: Record<string, any>) => void): string {
  const event = JSON.parse(JSON.stringify(base));
  change(event);
  return JSON.stringify(event);
}

const errorsOf = (raw: string) => {
  const result = parseErpEvent(raw);
  if (result.ok) throw new Error('expected a failure');
  return result;
};

describe('contract v2: accepted under schemaVersion 2', () => {
  it.each(Object.entries(validV2))('reads a %s with every v2 field as sent', (_, event) => {
    expect(parseErpEvent(JSON.stringify(event))).toEqual({ ok: true, event });
  });

  it('covers every event type', () => {
    expect(Object.keys(validV2).sort()).toEqual([...erpEventTypes].sort());
  });

  it('reads a contract v1 event relabelled schemaVersion 2 unchanged (v2 is a superset)', () => {
    const v1 = packageShipped(3, 1, 1, { carrier: 'UPS', items: [{ supplierProductId: 'PC61', quantity: 24 }] });
    expect(parseErpEvent(JSON.stringify(asV2(v1)))).toEqual({ ok: true, event: asV2(v1) });
  });

  it('reads the new types at their smallest: no lines, no contacts, an issue with its required fields', () => {
    expect(parseErpEvent(JSON.stringify(linesRecorded(1, []))).ok).toBe(true);
    expect(parseErpEvent(JSON.stringify(contactsRecorded(1, []))).ok).toBe(true);
    expect(parseErpEvent(JSON.stringify(issueRecorded(1))).ok).toBe(true);
  });

  it('keeps the v1 rule for v1 fields under schemaVersion 2: a blank optional one is absent', () => {
    const result = parseErpEvent(variant(validV2.PackageShipped, (e) => (e.data.carrier = ' ')));
    expect(result.ok && 'carrier' in result.event.data).toBe(false);
    expect(result.ok).toBe(true);
  });
});

describe('contract v2: refused under schemaVersion 1', () => {
  const v2Fields: [string, object, (e: Record<string, any>) => void][] = [ // eslint-disable-line @typescript-eslint/no-explicit-any
    ['/data/statusV2', statusChanged(1), (e) => (e.data.statusV2 = 'shipped')],
    ['/data/additionalExplanation', statusChanged(1), (e) => (e.data.additionalExplanation = 'why')],
    ['/data/qualityProofURL', statusChanged(1), (e) => (e.data.qualityProofURL = 'https://p.example')],
    ['/data/customerPickup', locationRecorded(1, 1), (e) => (e.data.customerPickup = false)],
    ['/data/shipTo/attentionTo', locationRecorded(1, 1), (e) => (e.data.shipTo.attentionTo = 'Dock')],
    ['/data/shipFrom/companyName', locationRecorded(1, 1), (e) => (e.data.shipFrom.companyName = 'Acme')],
    ['/data/shipTo/email', locationRecorded(1, 1), (e) => (e.data.shipTo.email = 'a@b.example')],
    ['/data/shipTo/phone', locationRecorded(1, 1), (e) => (e.data.shipTo.phone = '555')],
    ['/data/shipTo/regionV2', locationRecorded(1, 1), (e) => (e.data.shipTo.regionV2 = 'COL')],
    ['/data/carrierService', packageShipped(1, 1, 1), (e) => (e.data.carrierService = 'Ground')],
    ['/data/preProductionProof', packageShipped(1, 1, 1), (e) => (e.data.preProductionProof = 'Yes')],
    ['/data/items/0/uom', packageShipped(1, 1, 1), (e) => (e.data.items = [{ quantity: 1, uom: 'EA' }])],
    ['/data/shipReferences', packageShipped(1, 1, 1), (e) => (e.data.shipReferences = ['PO 4711'])],
  ];

  it.each(v2Fields)('refuses %s, saying that v2 fields need schemaVersion 2', (pointer, base, change) => {
    const raw = variant(base, change);
    expect(JSON.parse(raw).schemaVersion).toBe(1);
    expect(errorsOf(raw)).toEqual({
      ok: false,
      kind: 'schema',
      errors: [`${pointer}: is not an allowed property`, '/schemaVersion: the fields of contract v2 need schemaVersion 2'],
    });
    // The same under schemaVersion 2 is good.
    expect(parseErpEvent(variant(JSON.parse(raw), (e) => (e.schemaVersion = 2))).ok).toBe(true);
  });

  it('refuses a blank v2 field under schemaVersion 1 too, rather than reading it as absent', () => {
    expect(errorsOf(variant(statusChanged(1), (e) => (e.data.additionalExplanation = ' '))).errors).toEqual([
      '/data/additionalExplanation: is not an allowed property',
    ]);
  });

  it.each(['IssueRecorded', 'SalesOrderLinesRecorded', 'OrderContactsRecorded'] as const)('refuses a %s under schemaVersion 1', (type) => {
    const event = { IssueRecorded: validV2.IssueRecorded, SalesOrderLinesRecorded: validV2.SalesOrderLinesRecorded, OrderContactsRecorded: validV2.OrderContactsRecorded }[type];
    expect(errorsOf(variant(event, (e) => (e.schemaVersion = 1)))).toEqual({
      ok: false,
      kind: 'unknown-type',
      errors: [`/type: event type "${type}" needs schemaVersion 2`],
    });
  });

  it('lists the v2 types as known under schemaVersion 2', () => {
    expect(errorsOf(variant(validV2.PackageVoided, (e) => (e.type = 'PackageLost'))).errors).toEqual([
      '/type: unknown event type "PackageLost", known: SalesOrderStatusChanged, ShipmentLocationRecorded, PackageShipped, PackageVoided, ShipmentCompleted, IssueRecorded, SalesOrderLinesRecorded, OrderContactsRecorded',
    ]);
  });

  it.each([0, 3, -1])('refuses schemaVersion %i, v2 content or not', (version) => {
    for (const event of [validV2.IssueRecorded, statusChanged(1)]) {
      expect(errorsOf(variant(event, (e) => (e.schemaVersion = version)))).toEqual({
        ok: false,
        kind: 'unknown-schema-version',
        errors: [`/schemaVersion: unknown schema version ${version}, this reader knows 1, 2`],
      });
    }
  });

  it('wants schemaVersion 2 on a new type whose version is missing or not an integer', () => {
    expect(errorsOf(variant(validV2.IssueRecorded, (e) => delete e.schemaVersion)).errors).toEqual(['/schemaVersion: is required']);
    expect(errorsOf(variant(validV2.IssueRecorded, (e) => (e.schemaVersion = '2'))).errors).toEqual(['/schemaVersion: must be 2, got "2"']);
  });
});

describe('contract v2: blank strings in the fields v2 adds make the event bad', () => {
  const blanks = ['', ' ', '\t\n', '\u00a0\u3000'];
  const strictText: [string, object][] = [
    ['/data/additionalExplanation', validV2.SalesOrderStatusChanged],
    ['/data/qualityProofURL', validV2.SalesOrderStatusChanged],
    ...['attentionTo', 'companyName', 'email', 'phone', 'regionV2'].map((f): [string, object] => [`/data/shipTo/${f}`, validV2.ShipmentLocationRecorded]),
    ['/data/carrierService', validV2.PackageShipped],
    ...['issueId', 'issueName', 'issueDescription', 'issueResolutionURL', 'productId', 'partId'].map((f): [string, object] => [`/data/${f}`, validV2.IssueRecorded]),
    ...['salesOrderLineNumber', 'productId', 'partId', 'purchaseOrderLineNumber'].map((f): [string, object] => [`/data/lines/0/${f}`, validV2.SalesOrderLinesRecorded]),
    ...['accountName', 'accountNumber', 'attentionTo', 'companyName', 'address1', 'address2', 'address3', 'city', 'region', 'postalCode', 'email', 'phone', 'comments'].map(
      (f): [string, object] => [`/data/contacts/0/${f}`, validV2.OrderContactsRecorded],
    ),
  ];
  const strictChoice: [string, object][] = [
    ['/data/statusV2', validV2.SalesOrderStatusChanged],
    ['/data/preProductionProof', validV2.PackageShipped],
    ['/data/items/0/uom', validV2.PackageShipped],
    ['/data/issueStatus', validV2.IssueRecorded],
    ['/data/issueCategory', validV2.IssueRecorded],
    ['/data/lines/0/status', validV2.SalesOrderLinesRecorded],
    ['/data/lines/0/quantityOrdered/uom', validV2.SalesOrderLinesRecorded],
    ['/data/contacts/0/contactType', validV2.OrderContactsRecorded],
    ['/data/contacts/0/country', validV2.OrderContactsRecorded],
  ];

  function withField(base: object, pointer: string, value: string): string {
    return variant(base, (event) => {
      const names = pointer.split('/').slice(1);
      const last = names.pop() as string;
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- walking a JSON copy by pointer
      const parent = names.reduce((node: Record<string, any>, name) => node[name], event);
      parent[last] = value;
    });
  }

  it.each(strictText)('refuses an empty or blank %s, naming it', (pointer, base) => {
    for (const blank of blanks) {
      expect(parseErpEvent(withField(base, pointer, blank))).toEqual({ ok: false, kind: 'schema', errors: [`${pointer}: must not be empty or blank`] });
    }
  });

  it.each(strictChoice)('refuses an empty or blank %s', (pointer, base) => {
    for (const blank of blanks) {
      const result = errorsOf(withField(base, pointer, blank));
      expect(result.errors).toHaveLength(1);
      expect(result.errors[0]).toMatch(new RegExp(`^${pointer}: must (be one of|match)`));
    }
  });
});

describe('contract v2: limits', () => {
  const line = (n: number) => ({ salesOrderLineNumber: String(n), productId: 'P', quantityOrdered: { value: 1, uom: 'EA' as const } });

  it('takes up to 1,000 lines and 20 contacts in one event, not more', () => {
    const lines = Array.from({ length: 1000 }, (_, i) => line(i + 1));
    expect(parseErpEvent(JSON.stringify(linesRecorded(1, lines))).ok).toBe(true);
    expect(errorsOf(JSON.stringify(linesRecorded(1, [...lines, line(1001)]))).errors).toEqual(['/data/lines: Expected array length to be less or equal to 1000']);
    const contacts = Array.from({ length: 20 }, () => ({ contactType: 'Order' as const }));
    expect(parseErpEvent(JSON.stringify(contactsRecorded(1, contacts))).ok).toBe(true);
    expect(errorsOf(JSON.stringify(contactsRecorded(1, [...contacts, { contactType: 'Sold' }]))).errors).toEqual([
      '/data/contacts: Expected array length to be less or equal to 20',
    ]);
  });

  it.each([
    ['/data/shipTo/attentionTo', validV2.ShipmentLocationRecorded, 35],
    ['/data/shipTo/companyName', validV2.ShipmentLocationRecorded, 35],
    ['/data/shipTo/email', validV2.ShipmentLocationRecorded, 128],
    ['/data/shipTo/phone', validV2.ShipmentLocationRecorded, 32],
    ['/data/shipTo/regionV2', validV2.ShipmentLocationRecorded, 3],
    ['/data/carrierService', validV2.PackageShipped, 64],
    ['/data/additionalExplanation', validV2.SalesOrderStatusChanged, 1024],
    ['/data/qualityProofURL', validV2.SalesOrderStatusChanged, 1024],
    ['/data/issueId', validV2.IssueRecorded, 64],
    ['/data/issueName', validV2.IssueRecorded, 64],
    ['/data/issueDescription', validV2.IssueRecorded, 1024],
    ['/data/issueResolutionURL', validV2.IssueRecorded, 1024],
    ['/data/partId', validV2.IssueRecorded, 64],
    ['/data/lines/0/salesOrderLineNumber', validV2.SalesOrderLinesRecorded, 64],
    ['/data/lines/0/partId', validV2.SalesOrderLinesRecorded, 64],
    ['/data/contacts/0/address1', validV2.OrderContactsRecorded, 35],
    ['/data/contacts/0/city', validV2.OrderContactsRecorded, 30],
    ['/data/contacts/0/region', validV2.OrderContactsRecorded, 3],
    ['/data/contacts/0/postalCode', validV2.OrderContactsRecorded, 10],
    ['/data/contacts/0/comments', validV2.OrderContactsRecorded, 1024],
  ] as const)('%s holds up to %i characters', (pointer, base, max) => {
    const at = (length: number) =>
      variant(base, (event) => {
        const names = pointer.split('/').slice(1);
        const last = names.pop() as string;
        // eslint-disable-next-line @typescript-eslint/no-explicit-any -- walking a JSON copy by pointer
        names.reduce((node: Record<string, any>, name) => node[name], event)[last] = 'x'.repeat(length);
      });
    expect(parseErpEvent(at(max)).ok).toBe(true);
    expect(errorsOf(at(max + 1)).errors).toEqual([`${pointer}: must be at most ${max} characters`]);
  });

  it('checks the words, numbers and shapes of the new types', () => {
    expect(
      errorsOf(
        variant(validV2.SalesOrderLinesRecorded, (e) => {
          e.data.lines[0].quantityOrdered.value = -1;
          e.data.lines[0].quantityShipped.uom = 'XX';
          delete e.data.lines[1].productId;
        }),
      ).errors,
    ).toEqual([
      '/data/lines/0/quantityOrdered/value: must be at least 0',
      '/data/lines/0/quantityShipped/uom: must be one of BX, CA, DZ, EA, KT, PK, PR, RL, SL, ST, TH, got "XX"',
      '/data/lines/1/productId: is required',
    ]);
    expect(
      errorsOf(
        variant(validV2.IssueRecorded, (e) => {
          e.data.issueStatus = 'Resolved';
          e.data.responseRequiredBy = '2025-05-06';
          delete e.data.issueCategory;
        }),
      ).errors,
    ).toEqual([
      '/data/issueCategory: is required',
      '/data/issueStatus: must be one of Pending, Open, Closed, got "Resolved"',
      '/data/responseRequiredBy: must be an RFC 3339 date-time with offset, e.g. 2024-05-01T14:30:00Z',
    ]);
    expect(errorsOf(variant(validV2.OrderContactsRecorded, (e) => (e.data.contacts[0].country = 'us'))).errors).toEqual([
      '/data/contacts/0/country: must match ^[A-Z]{2}$',
    ]);
    expect(errorsOf(variant(validV2.OrderContactsRecorded, (e) => (e.data.contacts[1].contactType = 'Ship'))).errors).toEqual([
      '/data/contacts/1/contactType: must be one of Art, Bill, Expeditor, Order, Sales, Sold, got "Ship"',
    ]);
    expect(errorsOf(variant(validV2.PackageShipped, (e) => (e.data.preProductionProof = 'Maybe'))).errors).toEqual([
      '/data/preProductionProof: must be one of Yes, No, Unknown, got "Maybe"',
    ]);
  });
});

describe('contract v2: shipReferences on PackageShipped (OSN 2.1.0, docs/erp-events.md)', () => {
  const withReferences = (references: unknown) => variant(validV2.PackageShipped, (e) => (e.data.shipReferences = references));
  const max = 'x'.repeat(64);

  it.each([
    ['none', []],
    ['one', ['PO 4711']],
    ['four, 64 characters each', [max, max, max, max]],
    ['one character', ['7']],
  ])('takes %s, kept as sent', (_, references) => {
    const result = parseErpEvent(withReferences(references));
    expect(result.ok && result.event.type === 'PackageShipped' && result.event.data.shipReferences).toEqual(references);
  });

  it.each([
    ['five', ['1', '2', '3', '4', '5'], '/data/shipReferences: Expected array length to be less or equal to 4'],
    ['65 characters', ['ok', 'x'.repeat(65)], '/data/shipReferences/1: must be at most 64 characters'],
    ['an empty one', [''], '/data/shipReferences/0: must not be empty or blank'],
    ['a blank one', ['PO 4711', ' \t'], '/data/shipReferences/1: must not be empty or blank'],
    ['an invisible one', ['\u200b'], '/data/shipReferences/0: must not be empty or blank'],
    ['a number', ['PO 4711', 4711], '/data/shipReferences/1: must be a string'],
    ['a null', [null], '/data/shipReferences/0: must be a string'],
    ['a string, not a list', 'PO 4711', '/data/shipReferences: must be an array'],
  ])('refuses %s, naming where', (_, references, error) => {
    expect(errorsOf(withReferences(references))).toEqual({ ok: false, kind: 'schema', errors: [error] });
  });
});
