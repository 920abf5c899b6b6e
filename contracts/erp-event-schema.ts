import { Type, type Static, type TLiteral, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import { invisibleCharacters, nonBlankPattern } from './blank-strings.js';
import { answerableYears } from './formats.js';
import { statusIds } from './status-types.js';
import { contactTypes, issueCategories, issueStatuses, preProductionProofs, quantityUoms, statusWords } from './v2-vocabulary.js';

// The ERP event contract (docs/erp-events.md; v2: oss-osn-2.0.0.md §5) as TypeBox schemas:
// each one is plain JSON Schema at run time and a TypeScript type through Static, so the two cannot
// drift apart. Contract v2 is additive: an event of schemaVersion 1 is exactly contract v1, valid
// forever; the fields and event types v2 adds need schemaVersion 2.

/** The schemaVersion of contract v1. */
export const schemaVersion = 1;
/** The schemaVersion of contract v2, which the v2 fields and event types need. */
export const schemaVersionV2 = 2;
export const schemaVersions = [schemaVersion, schemaVersionV2] as const;
export type SchemaVersion = (typeof schemaVersions)[number];

/** Sequences and numbers above this lose precision as JSON numbers, which would break the sequence guard. */
const maxSafeInteger = Number.MAX_SAFE_INTEGER;

/** An optional string: a blank one is read as absent (blank-strings.ts), so it needs no minimum here. */
const text = (maxLength: number) => Type.String({ maxLength });
/**
 * A required string: the answers' schemas want at least one character there that is not white
 * space. Also every string field contract v2 adds, required or optional: stricter than v1's, a
 * blank one makes the event bad (the parser reads blank strings as absent only in v1's fields).
 */
const requiredText = (maxLength: number) => Type.String({ maxLength, pattern: nonBlankPattern });
/** An ISO 3166-1 alpha-2 code as a contact's country (contract v2). */
export const countryPattern = '^[A-Z]{2}$';
const positiveInteger = () => Type.Integer({ minimum: 1, maximum: maxSafeInteger });
/** The format's check also wants the years an answer can write (formats.ts); the description says so. */
const dateTimeRule = { format: 'date-time', description: `RFC 3339 date-time with offset, in the years ${answerableYears}` };
const dateTime = () => Type.String(dateTimeRule);
/** A date-time whose offset is UTC; the contract says shipmentDate is given in UTC. */
export const utcPattern = '(?:[Zz]|[+-]00:00)$';
/** No ':' anywhere, and at least one character that is neither ':' nor white space. */
export const clientIdPattern = `^[^:]*[^:${invisibleCharacters}][^:]*$`;
const utcDateTime = () => Type.String({ ...dateTimeRule, pattern: utcPattern });
/** An enum as a union of constants: TypeBox's compiler checks these, and Static keeps the literal type. */
const literals = <T extends string | number>(values: readonly T[]) =>
  Type.Union(values.map((v): TLiteral<T> => Type.Literal(v)));

export const statusIdSchema = literals(statusIds);
export const dimUOMs = ['Inches', 'Feet', 'mm', 'cm', 'Meters'] as const;
export const weightUOMs = ['Ounces', 'Pounds', 'Grams', 'KG'] as const;
export const shipmentDestinationTypes = ['Commercial', 'Residential', 'None'] as const;

export const AddressSchema = Type.Object(
  {
    address1: requiredText(64),
    address2: Type.Optional(text(64)),
    address3: Type.Optional(text(64)),
    address4: Type.Optional(text(64)),
    city: requiredText(64),
    region: requiredText(2),
    postalCode: requiredText(10),
    country: Type.Optional(text(128)),
  },
  { additionalProperties: false },
);

export const PackageItemSchema = Type.Object(
  {
    supplierProductId: Type.Optional(text(64)),
    supplierPartId: Type.Optional(text(64)),
    distributorProductId: Type.Optional(text(64)),
    distributorPartId: Type.Optional(text(64)),
    purchaseOrderLineNumber: Type.Optional(text(64)),
    quantity: Type.Optional(Type.Number()),
  },
  { additionalProperties: false },
);

/** Contract v2's additions to an address (ShipmentLocationRecorded's shipFrom and shipTo). */
export const AddressV2Schema = Type.Object(
  {
    ...AddressSchema.properties,
    attentionTo: Type.Optional(requiredText(35)),
    companyName: Type.Optional(requiredText(35)),
    email: Type.Optional(requiredText(128)),
    phone: Type.Optional(requiredText(32)),
    regionV2: Type.Optional(requiredText(3)),
  },
  { additionalProperties: false },
);

export const PackageItemV2Schema = Type.Object(
  { ...PackageItemSchema.properties, uom: Type.Optional(literals(quantityUoms)) },
  { additionalProperties: false },
);

export const QuantitySchema = Type.Object(
  { value: Type.Number({ minimum: 0 }), uom: literals(quantityUoms) },
  { additionalProperties: false },
);

export const maxLinesPerEvent = 1000;
export const maxContactsPerEvent = 20;
/** OSN 2.1.0's Package holds up to four references printed on the label (docs/erp-events.md, contract v2). */
export const maxShipReferences = 4;

export const ProductLineSchema = Type.Object(
  {
    salesOrderLineNumber: requiredText(64),
    productId: requiredText(64),
    partId: Type.Optional(requiredText(64)),
    purchaseOrderLineNumber: Type.Optional(requiredText(64)),
    quantityOrdered: QuantitySchema,
    quantityShipped: Type.Optional(QuantitySchema),
    status: Type.Optional(literals(statusWords)),
    issueCategory: Type.Optional(literals(issueCategories)),
  },
  { additionalProperties: false },
);

export const ContactSchema = Type.Object(
  {
    contactType: literals(contactTypes),
    accountName: Type.Optional(requiredText(64)),
    accountNumber: Type.Optional(requiredText(64)),
    attentionTo: Type.Optional(requiredText(35)),
    companyName: Type.Optional(requiredText(35)),
    address1: Type.Optional(requiredText(35)),
    address2: Type.Optional(requiredText(35)),
    address3: Type.Optional(requiredText(35)),
    city: Type.Optional(requiredText(30)),
    region: Type.Optional(requiredText(3)),
    postalCode: Type.Optional(requiredText(10)),
    country: Type.Optional(Type.String({ pattern: countryPattern })),
    email: Type.Optional(requiredText(128)),
    phone: Type.Optional(requiredText(32)),
    comments: Type.Optional(requiredText(1024)),
  },
  { additionalProperties: false },
);

const dataSchemas = {
  SalesOrderStatusChanged: Type.Object(
    {
      purchaseOrderNumber: Type.Optional(text(64)),
      statusId: statusIdSchema,
      expectedShipDate: Type.Optional(dateTime()),
      expectedDeliveryDate: Type.Optional(dateTime()),
      responseRequired: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false },
  ),
  ShipmentLocationRecorded: Type.Object(
    {
      locationId: positiveInteger(),
      shipFrom: AddressSchema,
      shipTo: AddressSchema,
      shipmentDestinationType: Type.Optional(literals(shipmentDestinationTypes)),
    },
    { additionalProperties: false },
  ),
  PackageShipped: Type.Object(
    {
      locationId: positiveInteger(),
      packageId: positiveInteger(),
      trackingNumber: requiredText(128),
      shipmentDate: utcDateTime(),
      carrier: Type.Optional(Type.String()),
      shipmentMethod: Type.Optional(text(128)),
      shippingAccount: Type.Optional(text(128)),
      shipmentTerms: Type.Optional(text(128)),
      dimUOM: Type.Optional(literals(dimUOMs)),
      length: Type.Optional(Type.Number()),
      width: Type.Optional(Type.Number()),
      height: Type.Optional(Type.Number()),
      weightUOM: Type.Optional(literals(weightUOMs)),
      weight: Type.Optional(Type.Number()),
      items: Type.Optional(Type.Array(PackageItemSchema)),
    },
    { additionalProperties: false },
  ),
  PackageVoided: Type.Object(
    { locationId: positiveInteger(), packageId: positiveInteger() },
    { additionalProperties: false },
  ),
  ShipmentCompleted: Type.Object({ locationId: Type.Optional(positiveInteger()) }, { additionalProperties: false }),
};

/** Contract v2's payloads: v1's with the optional fields v2 adds, and the three new types. */
const dataSchemasV2 = {
  SalesOrderStatusChanged: Type.Object(
    {
      ...dataSchemas.SalesOrderStatusChanged.properties,
      statusV2: Type.Optional(literals(statusWords)),
      additionalExplanation: Type.Optional(requiredText(1024)),
      qualityProofURL: Type.Optional(requiredText(1024)),
    },
    { additionalProperties: false },
  ),
  ShipmentLocationRecorded: Type.Object(
    {
      ...dataSchemas.ShipmentLocationRecorded.properties,
      customerPickup: Type.Optional(Type.Boolean()),
      shipFrom: AddressV2Schema,
      shipTo: AddressV2Schema,
    },
    { additionalProperties: false },
  ),
  PackageShipped: Type.Object(
    {
      ...dataSchemas.PackageShipped.properties,
      carrierService: Type.Optional(requiredText(64)),
      preProductionProof: Type.Optional(literals(preProductionProofs)),
      items: Type.Optional(Type.Array(PackageItemV2Schema)),
      // OSN 2.1.0's label references, each 1-64 characters and not blank (requiredText), as the package's whole list.
      shipReferences: Type.Optional(Type.Array(requiredText(64), { maxItems: maxShipReferences })),
    },
    { additionalProperties: false },
  ),
  PackageVoided: dataSchemas.PackageVoided,
  ShipmentCompleted: dataSchemas.ShipmentCompleted,
  IssueRecorded: Type.Object(
    {
      issueId: requiredText(64),
      issueStatus: literals(issueStatuses),
      issueCategory: literals(issueCategories),
      issueName: Type.Optional(requiredText(64)),
      urgentResponseRequired: Type.Optional(Type.Boolean()),
      issueDescription: Type.Optional(requiredText(1024)),
      responseRequiredBy: Type.Optional(dateTime()),
      issueResolutionURL: Type.Optional(requiredText(1024)),
      productId: Type.Optional(requiredText(64)),
      partId: Type.Optional(requiredText(64)),
    },
    { additionalProperties: false },
  ),
  SalesOrderLinesRecorded: Type.Object(
    { lines: Type.Array(ProductLineSchema, { maxItems: maxLinesPerEvent }) },
    { additionalProperties: false },
  ),
  OrderContactsRecorded: Type.Object(
    { contacts: Type.Array(ContactSchema, { maxItems: maxContactsPerEvent }) },
    { additionalProperties: false },
  ),
};

/** The event types of contract v1, which schemaVersion 1 allows. */
export type ErpEventTypeV1 = keyof typeof dataSchemas;
export const erpEventTypesV1 = Object.keys(dataSchemas) as ErpEventTypeV1[];
/** Every event type (contract v2); the types beyond v1's need schemaVersion 2. */
export type ErpEventType = keyof typeof dataSchemasV2;
export const erpEventTypes = Object.keys(dataSchemasV2) as ErpEventType[];

/** The envelope with the payload of one type; properties in the order erp-events.md lists them. */
function envelope<T extends TSchema, V extends TSchema, D extends TSchema>(type: T, version: V, data: D) {
  return {
    eventId: Type.String({ format: 'uuid' }),
    type,
    schemaVersion: version,
    // No ':' in a client id: the key and the read-model ids are `<clientId>:<salesOrderNumber>`,
    // which must name one client's sales order, whatever the sales order number holds. Like every
    // required string it must not be blank either; one pattern says both.
    clientId: Type.String({ maxLength: 64, pattern: clientIdPattern }),
    salesOrderNumber: requiredText(64),
    sequence: positiveInteger(),
    occurredAt: dateTime(),
    data,
  };
}

function eventSchema<T extends ErpEventType, V extends TSchema, D extends TProperties>(type: T, version: V, data: TObject<D>) {
  return Type.Object(envelope(Type.Literal(type), version, data), { title: type, additionalProperties: false });
}

const v1 = Type.Literal(schemaVersion);
const v2 = Type.Literal(schemaVersionV2);

/** Contract v1, each type under schemaVersion 1: exactly what v1 readers accepted. */
export const eventSchemasV1 = {
  SalesOrderStatusChanged: eventSchema('SalesOrderStatusChanged', v1, dataSchemas.SalesOrderStatusChanged),
  ShipmentLocationRecorded: eventSchema('ShipmentLocationRecorded', v1, dataSchemas.ShipmentLocationRecorded),
  PackageShipped: eventSchema('PackageShipped', v1, dataSchemas.PackageShipped),
  PackageVoided: eventSchema('PackageVoided', v1, dataSchemas.PackageVoided),
  ShipmentCompleted: eventSchema('ShipmentCompleted', v1, dataSchemas.ShipmentCompleted),
} as const;

/** Contract v2, each type under schemaVersion 2. */
export const eventSchemasV2 = {
  SalesOrderStatusChanged: eventSchema('SalesOrderStatusChanged', v2, dataSchemasV2.SalesOrderStatusChanged),
  ShipmentLocationRecorded: eventSchema('ShipmentLocationRecorded', v2, dataSchemasV2.ShipmentLocationRecorded),
  PackageShipped: eventSchema('PackageShipped', v2, dataSchemasV2.PackageShipped),
  PackageVoided: eventSchema('PackageVoided', v2, dataSchemasV2.PackageVoided),
  ShipmentCompleted: eventSchema('ShipmentCompleted', v2, dataSchemasV2.ShipmentCompleted),
  IssueRecorded: eventSchema('IssueRecorded', v2, dataSchemasV2.IssueRecorded),
  SalesOrderLinesRecorded: eventSchema('SalesOrderLinesRecorded', v2, dataSchemasV2.SalesOrderLinesRecorded),
  OrderContactsRecorded: eventSchema('OrderContactsRecorded', v2, dataSchemasV2.OrderContactsRecorded),
} as const;

/** The schemas of each schemaVersion, by event type: a type missing under a version needs a later one. */
export const eventSchemasByVersion: Record<SchemaVersion, Partial<Record<ErpEventType, TSchema>>> = {
  [schemaVersion]: eventSchemasV1,
  [schemaVersionV2]: eventSchemasV2,
};

/** The envelope alone (any type, any data object): to report envelope problems of an unknown type. */
export const AnyEnvelopeSchema = Type.Object(envelope(Type.String(), Type.Union([v1, v2]), Type.Object({})), { additionalProperties: false });

/** Contract v1 as one schema: every v1 reader's contract, kept as it was. */
export const ErpEventV1Schema = Type.Union(Object.values(eventSchemasV1), {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'urn:ossn:erp-event:v1',
  title: 'ERP event, contract v1',
});

/** Contract v2 as one schema: v1's branches (schemaVersion 1) and v2's (schemaVersion 2), so a superset of v1. */
export const ErpEventSchema = Type.Union([...Object.values(eventSchemasV1), ...Object.values(eventSchemasV2)], {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'urn:ossn:erp-event:v2',
  title: 'ERP event, contract v2 (schemaVersion 1 events are contract v1)',
});

/** The contract (v2, which holds v1) as plain JSON Schema (draft 2020-12), e.g. for `JSON.stringify` into a file. */
export const erpEventJsonSchema: Readonly<Record<string, unknown>> = JSON.parse(JSON.stringify(ErpEventSchema));
/** Contract v1 alone as plain JSON Schema. */
export const erpEventV1JsonSchema: Readonly<Record<string, unknown>> = JSON.parse(JSON.stringify(ErpEventV1Schema));

// The TypeScript types: one type per event type with v2's payload and either schemaVersion. A
// schemaVersion 1 event never holds v2's fields (the parser refuses them), which v2's optional
// fields allow; so the projections handle both versions with one handler per type.
type EventType<K extends ErpEventType> = Omit<Static<(typeof eventSchemasV2)[K]>, 'schemaVersion'> & { schemaVersion: SchemaVersion };

/** An address as the contract carries it (v2's fields included), and as the read models keep it. */
export type Address = Static<typeof AddressV2Schema>;
/** A package's item as the contract carries it (v2's uom included), and as the read models keep it. */
export type PackageItem = Static<typeof PackageItemV2Schema>;
/**
 * A package as PackageShipped describes it, without its location and number, its shipmentDate a
 * Date: as the read models keep it (under its packageId) and the lookups answer it (as its id).
 */
export type PackageDetails = Omit<PackageShipped['data'], 'locationId' | 'packageId' | 'shipmentDate'> & { shipmentDate: Date };
export type ShipmentDestinationType = (typeof shipmentDestinationTypes)[number];
export type ProductLine = Static<typeof ProductLineSchema>;
/** A quantity of a product line (contract v2). */
export type Quantity = Static<typeof QuantitySchema>;
export type Contact = Static<typeof ContactSchema>;
export type SalesOrderStatusChanged = EventType<'SalesOrderStatusChanged'>;
export type ShipmentLocationRecorded = EventType<'ShipmentLocationRecorded'>;
export type PackageShipped = EventType<'PackageShipped'>;
export type PackageVoided = EventType<'PackageVoided'>;
export type ShipmentCompleted = EventType<'ShipmentCompleted'>;
export type IssueRecorded = EventType<'IssueRecorded'>;
export type SalesOrderLinesRecorded = EventType<'SalesOrderLinesRecorded'>;
export type OrderContactsRecorded = EventType<'OrderContactsRecorded'>;
export type ErpEvent =
  | SalesOrderStatusChanged
  | ShipmentLocationRecorded
  | PackageShipped
  | PackageVoided
  | ShipmentCompleted
  | IssueRecorded
  | SalesOrderLinesRecorded
  | OrderContactsRecorded;
export type ErpEventOf<T extends ErpEventType> = Extract<ErpEvent, { type: T }>;
