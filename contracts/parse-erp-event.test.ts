import { describe, expect, it } from 'vitest';
import { erpEventJsonSchema, erpEventTypes, erpEventTypesV1, erpEventV1JsonSchema } from './erp-event-schema.js';
import { parseErpEvent } from './parse-erp-event.js';
import { locationRecorded, packageShipped, packageVoided, sampleEvent, shipmentCompleted, statusChanged } from '../test/fixtures/sample-events.js';

const valid = {
  SalesOrderStatusChanged: sampleEvent('SalesOrderStatusChanged', 1, {
    purchaseOrderNumber: 'PO-1',
    statusId: 42,
    expectedShipDate: '2025-05-10T00:00:00-05:00',
    expectedDeliveryDate: '2025-05-14T00:00:00Z',
    responseRequired: true,
  }),
  ShipmentLocationRecorded: locationRecorded(2, 1, { shipmentDestinationType: 'Residential' }),
  PackageShipped: packageShipped(3, 1, 1, {
    carrier: 'UPS',
    shipmentMethod: 'Ground',
    shippingAccount: 'A1B2C3',
    shipmentTerms: 'Third Party',
    dimUOM: 'Inches',
    length: 12,
    width: 10,
    height: 8.5,
    weightUOM: 'Pounds',
    weight: 14.2,
    items: [{ supplierProductId: 'PC61', supplierPartId: 'PC61-NAVY-L', distributorProductId: 'D-1', distributorPartId: 'D-1-L', purchaseOrderLineNumber: '1', quantity: 24 }],
  }),
  PackageVoided: packageVoided(4, 1, 1),
  ShipmentCompleted: shipmentCompleted(5),
};

/** `base` as JSON with `change` applied to a parsed copy. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests break events in ways no type allows
function variant(base: object, change: (event: Record<string, any>) => void): string {
  const event = JSON.parse(JSON.stringify(base));
  change(event);
  return JSON.stringify(event);
}

const errorsOf = (raw: string | Buffer) => {
  const result = parseErpEvent(raw);
  if (result.ok) throw new Error('expected a failure');
  return result;
};

describe('parseErpEvent: valid events', () => {
  it.each(Object.entries(valid))('reads a %s from a string and from a Buffer', (_, event) => {
    expect(parseErpEvent(JSON.stringify(event))).toEqual({ ok: true, event });
    expect(parseErpEvent(Buffer.from(JSON.stringify(event)))).toEqual({ ok: true, event });
  });

  it('covers every event type of contract v1', () => {
    expect(Object.keys(valid).sort()).toEqual([...erpEventTypesV1].sort());
  });

  it('reads the optional-only payloads at their smallest', () => {
    expect(parseErpEvent(JSON.stringify(statusChanged(1, { statusId: 10 }))).ok).toBe(true);
    expect(parseErpEvent(JSON.stringify(shipmentCompleted(1, 3))).ok).toBe(true);
    expect(parseErpEvent(JSON.stringify(packageShipped(1, 1, 1, { shipmentDate: '2025-05-02T15:30:00+00:00' }))).ok).toBe(true);
  });
});

describe('parseErpEvent: kinds of failure', () => {
  it('says when a message is not JSON', () => {
    const result = errorsOf('{"type": "PackageVoided",');
    expect(result.kind).toBe('not-json');
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatch(/^not JSON: /);
  });

  it('says when a message is not UTF-8', () => {
    expect(errorsOf(Buffer.from([0x7b, 0xff, 0x7d]))).toEqual({ ok: false, kind: 'not-json', errors: ['not JSON: the message is not valid UTF-8'] });
  });

  it('names an unknown type, and any envelope problem besides', () => {
    const result = errorsOf(variant(valid.PackageVoided, (e) => {
      e.type = 'PackageLost';
      e.sequence = 0;
    }));
    expect(result.kind).toBe('unknown-type');
    expect(result.errors).toEqual([
      '/type: unknown event type "PackageLost", known: SalesOrderStatusChanged, ShipmentLocationRecorded, PackageShipped, PackageVoided, ShipmentCompleted',
      '/sequence: must be at least 1',
    ]);
  });

  it('names an unknown schema version and judges nothing else', () => {
    const result = errorsOf(variant(valid.PackageVoided, (e) => {
      e.schemaVersion = 3;
      e.data = { anything: 'goes in v3' };
    }));
    expect(result).toEqual({ ok: false, kind: 'unknown-schema-version', errors: ['/schemaVersion: unknown schema version 3, this reader knows 1, 2'] });
  });

  it('counts a schemaVersion that is not an integer as a schema violation', () => {
    const result = errorsOf(variant(valid.PackageVoided, (e) => (e.schemaVersion = '1')));
    expect(result).toEqual({ ok: false, kind: 'schema', errors: ['/schemaVersion: must be 1, got "1"'] });
  });

  it('wants an object at the root', () => {
    expect(errorsOf('[]')).toEqual({ ok: false, kind: 'schema', errors: ['/: must be an object (an event envelope)'] });
    expect(errorsOf('null').errors).toEqual(['/: must be an object (an event envelope)']);
  });

  it('reports a missing type as missing, with the rest of the envelope', () => {
    const result = errorsOf(JSON.stringify({ eventId: 'x', data: {} }));
    expect(result.kind).toBe('schema');
    expect(result.errors).toEqual([
      '/type: is required',
      '/schemaVersion: is required',
      '/clientId: is required',
      '/salesOrderNumber: is required',
      '/sequence: is required',
      '/occurredAt: is required',
      '/eventId: must be a UUID',
    ]);
  });
});

describe('parseErpEvent: schema violations', () => {
  it('reports every problem with its JSON path', () => {
    const result = errorsOf(variant(valid.ShipmentLocationRecorded, (e) => {
      e.clientId = '';
      e.occurredAt = '2025-05-01T10:00:00';
      e.extra = true;
      e.data.shipTo.region = 'Colorado';
      delete e.data.shipTo.city;
      e.data.shipFrom.postalCode = '75006-12345';
      e.data.shipFrom.fax = '555';
      e.data.shipmentDestinationType = 'Warehouse';
    }));
    expect(result.kind).toBe('schema');
    expect(result.errors).toEqual([
      '/extra: is not an allowed property',
      '/clientId: must not be empty or blank',
      '/occurredAt: must be an RFC 3339 date-time with offset, e.g. 2024-05-01T14:30:00Z',
      '/data/shipFrom/fax: is not an allowed property',
      '/data/shipFrom/postalCode: must be at most 10 characters',
      '/data/shipTo/city: is required',
      '/data/shipTo/region: must be at most 2 characters',
      '/data/shipmentDestinationType: must be one of Commercial, Residential, None, got "Warehouse"',
    ]);
  });

  it("refuses a client id with ':', which would make two clients' sales orders share one key", () => {
    const result = errorsOf(variant(valid.SalesOrderStatusChanged, (e) => {
      e.clientId = 'A:B';
    }));
    expect(result.errors).toEqual(["/clientId: must not contain ':'"]);
    expect(parseErpEvent(variant(valid.SalesOrderStatusChanged, (e) => (e.salesOrderNumber = 'B:C'))).ok).toBe(true);
  });

  it('checks the envelope', () => {
    const result = errorsOf(variant(valid.PackageVoided, (e) => {
      e.eventId = 'not-a-uuid';
      e.salesOrderNumber = 'S'.repeat(65);
      e.sequence = 1.5;
      delete e.data;
    }));
    expect(result.errors).toEqual([
      '/data: is required',
      '/eventId: must be a UUID',
      '/salesOrderNumber: must be at most 64 characters',
      '/sequence: must be an integer',
    ]);
  });

  it('checks a status change', () => {
    const result = errorsOf(variant(valid.SalesOrderStatusChanged, (e) => {
      e.data.statusId = 50;
      e.data.purchaseOrderNumber = 'P'.repeat(65);
      e.data.expectedShipDate = '2025-02-30T00:00:00Z';
      e.data.responseRequired = 'yes';
    }));
    expect(result.errors).toEqual([
      '/data/purchaseOrderNumber: must be at most 64 characters',
      '/data/statusId: must be one of 10, 11, 20, 30, 40, 41, 42, 43, 44, 60, 70, 75, 80, 99, got 50',
      '/data/expectedShipDate: must be an RFC 3339 date-time with offset, e.g. 2024-05-01T14:30:00Z',
      '/data/responseRequired: must be true or false',
    ]);
  });

  it('checks a package', () => {
    const result = errorsOf(variant(valid.PackageShipped, (e) => {
      e.data.packageId = 0;
      e.data.trackingNumber = 'T'.repeat(129);
      e.data.shipmentDate = '2025-05-02T10:30:00-05:00';
      e.data.dimUOM = 'Yards';
      e.data.weightUOM = 'Stone';
      e.data.weight = '14';
      e.data.items[0].quantity = '24';
      e.data.items[0].colour = 'navy';
      e.data.items[1] = 'PC61';
    }));
    expect(result.errors).toEqual([
      '/data/packageId: must be at least 1',
      '/data/trackingNumber: must be at most 128 characters',
      '/data/shipmentDate: must be in UTC (offset Z or +00:00)',
      '/data/dimUOM: must be one of Inches, Feet, mm, cm, Meters, got "Yards"',
      '/data/weightUOM: must be one of Ounces, Pounds, Grams, KG, got "Stone"',
      '/data/weight: must be a number',
      '/data/items/0/colour: is not an allowed property',
      '/data/items/0/quantity: must be a number',
      '/data/items/1: must be an object',
    ]);
  });

  it('checks the location and package numbers of the smaller events', () => {
    expect(errorsOf(variant(valid.PackageVoided, (e) => (e.data = { locationId: -1 }))).errors).toEqual([
      '/data/packageId: is required',
      '/data/locationId: must be at least 1',
    ]);
    expect(errorsOf(variant(valid.ShipmentCompleted, (e) => (e.data = { locationId: 2, all: true }))).errors).toEqual([
      '/data/all: is not an allowed property',
    ]);
    expect(errorsOf(variant(valid.ShipmentCompleted, (e) => (e.data = []))).errors).toEqual(['/data: must be an object']);
  });

  it('refuses date-times outside the years an answer can write, saying so', () => {
    const result = errorsOf(variant(valid.PackageShipped, (e) => {
      e.occurredAt = '0001-01-01T00:30:00+01:00';
      e.data.shipmentDate = '0000-05-02T15:30:00Z';
    }));
    expect(result.errors).toEqual([
      '/occurredAt: must lie in the years 0001 to 9999 in UTC',
      '/data/shipmentDate: must lie in the years 0001 to 9999 in UTC',
    ]);
    expect(errorsOf(variant(valid.SalesOrderStatusChanged, (e) => (e.data.expectedDeliveryDate = '9999-12-31T23:00:00-02:00'))).errors).toEqual([
      '/data/expectedDeliveryDate: must lie in the years 0001 to 9999 in UTC',
    ]);
    expect(parseErpEvent(variant(valid.SalesOrderStatusChanged, (e) => (e.data.expectedShipDate = '9999-12-31T23:59:59.999Z'))).ok).toBe(true);
  });

  it('refuses sequences too large to compare exactly', () => {
    expect(errorsOf(variant(valid.PackageVoided, (e) => (e.sequence = 2 ** 53))).errors).toEqual([
      '/sequence: must be at most 9007199254740991',
    ]);
  });
});

// erp-events.md, "Strings": every string holds a character that is not white space, or is absent.
describe('parseErpEvent: empty and blank strings', () => {
  // Empty, spaces, line breaks and tabs, and the no-break and ideographic spaces (white space too).
  // Zero-width and other invisible characters show nothing either: a string of them alone is blank.
  const blanks = ['', ' ', '\t\n', '\u00a0\u3000', '\u200b', '\u200b\u2060', '\u00ad\u200e', '\ufeff', '\u{e0020}'];

  /** The event's field at a JSON pointer below /data (or the envelope for a top-level name). */
  function withField(base: object, pointer: string, value: unknown): string {
    return variant(base, (event) => {
      const names = pointer.split('/').slice(1);
      const last = names.pop() as string;
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- walking a JSON copy by pointer
      const parent = names.reduce((node: Record<string, any>, name) => node[name], event);
      if (value === undefined) delete parent[last];
      else parent[last] = value;
    });
  }

  const required: [string, object][] = [
    ['/clientId', valid.PackageVoided],
    ['/salesOrderNumber', valid.SalesOrderStatusChanged],
    ...['address1', 'city', 'region', 'postalCode'].flatMap((field): [string, object][] => [
      [`/data/shipFrom/${field}`, valid.ShipmentLocationRecorded],
      [`/data/shipTo/${field}`, valid.ShipmentLocationRecorded],
    ]),
    ['/data/trackingNumber', valid.PackageShipped],
  ];

  const optionalText: [string, object][] = [
    ['/data/purchaseOrderNumber', valid.SalesOrderStatusChanged],
    ...['address2', 'address3', 'address4', 'country'].map((field): [string, object] => [`/data/shipTo/${field}`, valid.ShipmentLocationRecorded]),
    ...['carrier', 'shipmentMethod', 'shippingAccount', 'shipmentTerms'].map((field): [string, object] => [`/data/${field}`, valid.PackageShipped]),
    ...['supplierProductId', 'supplierPartId', 'distributorProductId', 'distributorPartId', 'purchaseOrderLineNumber'].map(
      (field): [string, object] => [`/data/items/0/${field}`, valid.PackageShipped],
    ),
  ];

  const optionalChoice: [string, object][] = [
    ['/data/shipmentDestinationType', valid.ShipmentLocationRecorded],
    ['/data/dimUOM', valid.PackageShipped],
    ['/data/weightUOM', valid.PackageShipped],
  ];

  it.each(required)('makes the event bad when required %s is empty or blank, naming the field', (pointer, base) => {
    for (const blank of blanks) {
      expect(parseErpEvent(withField(base, pointer, blank))).toEqual({ ok: false, kind: 'schema', errors: [`${pointer}: must not be empty or blank`] });
    }
  });

  it.each([...optionalText, ...optionalChoice])('reads an empty or blank optional %s as absent', (pointer, base) => {
    const without = JSON.parse(withField(base, pointer, undefined));
    for (const blank of blanks) {
      expect(parseErpEvent(withField(base, pointer, blank))).toEqual({ ok: true, event: without });
    }
  });

  it('reads a blank purchase order number as none, so the sales order is never answered by purchase order', () => {
    const result = parseErpEvent(withField(valid.SalesOrderStatusChanged, '/data/purchaseOrderNumber', '   '));
    // Accepted, and without the field (a refusal must fail this, not pass it).
    expect(result.ok).toBe(true);
    expect(result.ok && 'purchaseOrderNumber' in result.event.data).toBe(false);
  });

  it('reads a blank optional string as absent even when it is longer than the field allows', () => {
    const result = parseErpEvent(withField(valid.ShipmentLocationRecorded, '/data/shipFrom/address2', ' '.repeat(65)));
    expect(result).toEqual({ ok: true, event: valid.ShipmentLocationRecorded });
  });

  it('keeps a string with white space around other characters exactly as sent', () => {
    const padded = variant(valid.PackageShipped, (e) => {
      e.clientId = ' C1 ';
      e.data.trackingNumber = '\t1Z 999\n';
      e.data.carrier = ' UPS ';
      e.data.items[0].supplierPartId = ' PC61 ';
    });
    expect(parseErpEvent(padded)).toEqual({ ok: true, event: JSON.parse(padded) });
  });

  it("names both problems of a client id that is blank or holds ':'", () => {
    expect(errorsOf(withField(valid.PackageVoided, '/clientId', ' ')).errors).toEqual(['/clientId: must not be empty or blank']);
    expect(errorsOf(withField(valid.PackageVoided, '/clientId', ' : ')).errors).toEqual(["/clientId: must not contain ':'"]);
  });
});

describe('erpEventJsonSchema', () => {
  const objects = (node: unknown): Record<string, unknown>[] => {
    if (typeof node !== 'object' || node === null) return [];
    const here = (node as { type?: unknown }).type === 'object' ? [node as Record<string, unknown>] : [];
    return [...here, ...Object.values(node).flatMap(objects)];
  };

  type Branch = { properties: { type: { const: string }; schemaVersion: { const: number } } };
  const branchesOf = (schema: Readonly<Record<string, unknown>>) =>
    (schema.anyOf as Branch[]).map((b) => `${b.properties.type.const}@${b.properties.schemaVersion.const}`);

  it('is plain JSON Schema: contract v2, with one branch per event type and schemaVersion', () => {
    expect(JSON.parse(JSON.stringify(erpEventJsonSchema))).toEqual(erpEventJsonSchema);
    expect(erpEventJsonSchema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(erpEventJsonSchema.$id).toBe('urn:ossn:erp-event:v2');
    expect(branchesOf(erpEventJsonSchema)).toEqual([...erpEventTypesV1.map((t) => `${t}@1`), ...erpEventTypes.map((t) => `${t}@2`)]);
  });

  it("holds contract v1's schema unchanged as its schemaVersion 1 branches (a superset of v1)", () => {
    expect(erpEventV1JsonSchema.$id).toBe('urn:ossn:erp-event:v1');
    expect(branchesOf(erpEventV1JsonSchema)).toEqual(erpEventTypesV1.map((t) => `${t}@1`));
    expect((erpEventJsonSchema.anyOf as unknown[]).slice(0, erpEventTypesV1.length)).toEqual(erpEventV1JsonSchema.anyOf);
    // 5 envelopes, 5 payloads, shipFrom, shipTo and the package item.
    expect(objects(erpEventV1JsonSchema)).toHaveLength(13);
  });

  it('allows no property beyond those listed, anywhere', () => {
    const all = objects(erpEventJsonSchema);
    // v1's 13; v2's 8 envelopes, 8 payloads, shipFrom, shipTo, the package item, a line with its
    // two quantities, and a contact.
    expect(all).toHaveLength(13 + 8 + 8 + 3 + 3 + 1);
    expect(all.filter((o) => o.additionalProperties !== false)).toEqual([]);
  });
});
