import { Type, type Static, type TLiteral, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import { nonBlankPattern } from './blank-strings.js';
import { answerableYears } from './formats.js';
import { statusIds } from './status-types.js';

// The ERP event contract v1 (shared/design/erp-events.md) as TypeBox schemas: each one is plain
// JSON Schema at run time and a TypeScript type through Static, so the two cannot drift apart.

export const schemaVersion = 1;

/** Sequences and numbers above this lose precision as JSON numbers, which would break the sequence guard. */
const maxSafeInteger = Number.MAX_SAFE_INTEGER;

/** An optional string: a blank one is read as absent (blank-strings.ts), so it needs no minimum here. */
const text = (maxLength: number) => Type.String({ maxLength });
/** A required string: the answers' schemas want at least one character there that is not white space. */
const requiredText = (maxLength: number) => Type.String({ maxLength, pattern: nonBlankPattern });
const positiveInteger = () => Type.Integer({ minimum: 1, maximum: maxSafeInteger });
/** The format's check also wants the years an answer can write (formats.ts); the description says so. */
const dateTimeRule = { format: 'date-time', description: `RFC 3339 date-time with offset, in the years ${answerableYears}` };
const dateTime = () => Type.String(dateTimeRule);
/** A date-time whose offset is UTC; the contract says shipmentDate is given in UTC. */
export const utcPattern = '(?:[Zz]|[+-]00:00)$';
/** No ':' anywhere, and at least one character that is neither ':' nor white space. */
export const clientIdPattern = '^[^:]*[^:\\s][^:]*$';
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

export type ErpEventType = keyof typeof dataSchemas;
export const erpEventTypes = Object.keys(dataSchemas) as ErpEventType[];

/** The envelope with the payload of one type; properties in the order erp-events.md lists them. */
function envelope<T extends TSchema, D extends TSchema>(type: T, data: D) {
  return {
    eventId: Type.String({ format: 'uuid' }),
    type,
    schemaVersion: Type.Literal(schemaVersion),
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

function eventSchema<T extends ErpEventType, D extends TProperties>(type: T, data: TObject<D>) {
  return Type.Object(envelope(Type.Literal(type), data), { title: type, additionalProperties: false });
}

export const SalesOrderStatusChangedSchema = eventSchema('SalesOrderStatusChanged', dataSchemas.SalesOrderStatusChanged);
export const ShipmentLocationRecordedSchema = eventSchema('ShipmentLocationRecorded', dataSchemas.ShipmentLocationRecorded);
export const PackageShippedSchema = eventSchema('PackageShipped', dataSchemas.PackageShipped);
export const PackageVoidedSchema = eventSchema('PackageVoided', dataSchemas.PackageVoided);
export const ShipmentCompletedSchema = eventSchema('ShipmentCompleted', dataSchemas.ShipmentCompleted);

export const eventSchemas = {
  SalesOrderStatusChanged: SalesOrderStatusChangedSchema,
  ShipmentLocationRecorded: ShipmentLocationRecordedSchema,
  PackageShipped: PackageShippedSchema,
  PackageVoided: PackageVoidedSchema,
  ShipmentCompleted: ShipmentCompletedSchema,
} as const;

/** The envelope alone (any type, any data object): to report envelope problems of an unknown type. */
export const AnyEnvelopeSchema = Type.Object(envelope(Type.String(), Type.Object({})), { additionalProperties: false });

export const ErpEventSchema = Type.Union(Object.values(eventSchemas), {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'urn:ossn:erp-event:v1',
  title: 'ERP event, contract v1',
});

/** The contract as plain JSON Schema (draft 2020-12), e.g. for `JSON.stringify` into a file. */
export const erpEventJsonSchema: Readonly<Record<string, unknown>> = JSON.parse(JSON.stringify(ErpEventSchema));

/** An address as the contract carries it, and as the read models keep and the lookups answer it. */
export type Address = Static<typeof AddressSchema>;
/** A package's item as the contract carries it, and as the read models keep and the lookups answer it. */
export type PackageItem = Static<typeof PackageItemSchema>;
/**
 * A package as PackageShipped describes it, without its location and number, its shipmentDate a
 * Date: as the read models keep it (under its packageId) and the lookups answer it (as its id).
 */
export type PackageDetails = Omit<PackageShipped['data'], 'locationId' | 'packageId' | 'shipmentDate'> & { shipmentDate: Date };
export type ShipmentDestinationType = (typeof shipmentDestinationTypes)[number];
export type SalesOrderStatusChanged = Static<typeof SalesOrderStatusChangedSchema>;
export type ShipmentLocationRecorded = Static<typeof ShipmentLocationRecordedSchema>;
export type PackageShipped = Static<typeof PackageShippedSchema>;
export type PackageVoided = Static<typeof PackageVoidedSchema>;
export type ShipmentCompleted = Static<typeof ShipmentCompletedSchema>;
export type ErpEvent =
  | SalesOrderStatusChanged
  | ShipmentLocationRecorded
  | PackageShipped
  | PackageVoided
  | ShipmentCompleted;
export type ErpEventOf<T extends ErpEventType> = Extract<ErpEvent, { type: T }>;
