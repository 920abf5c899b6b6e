// Validates SOAP answers against the official PromoStandards XSDs with libxml2 (xmllint-wasm):
// the envelope against a minimal SOAP 1.1 envelope schema whose Body payload is checked strictly
// against the service's schema, loaded from the untouched files in wsdl/.
import { readdir, readFile } from 'node:fs/promises';
import { validateXML, type XMLFileInfo } from 'xmllint-wasm';

export type XsdService = 'oss' | 'osn' | 'oss-2.0.0' | 'osn-2.0.0' | 'osn-2.1.0';

const ROOT = new URL('../../wsdl/', import.meta.url);
const SERVICES: Record<XsdService, { folder: string; namespace: string; entry: string[] }> = {
  oss: {
    folder: 'oss-1.0.0',
    namespace: 'http://www.promostandards.org/WSDL/OrderStatusService/1.0.0/',
    entry: ['GetOrderStatusDetailsRequest.xsd', 'GetOrderStatusDetailsResponse.xsd', 'GetOrderStatusTypesRequest.xsd', 'GetOrderStatusTypesResponse.xsd'],
  },
  osn: {
    folder: 'osn-1.0.0',
    namespace: 'http://www.promostandards.org/WSDL/OrderShipmentNotificationService/1.0.0/',
    entry: ['GetOrderShipmentNotificationRequest.xsd', 'GetOrderShipmentNotificationResponse.xsd'],
  },
  // 2.0.0: the request and response elements are in the service namespace (M), their content in
  // M + SharedObjects/ (imported by each entry XSD); the OSN entries bind their prefixes differently.
  'oss-2.0.0': {
    folder: 'oss-2.0.0',
    namespace: 'http://www.promostandards.org/WSDL/OrderStatus/2.0.0/',
    entry: [
      'GetOrderStatusRequest.xsd',
      'GetOrderStatusResponse.xsd',
      'GetIssueRequest.xsd',
      'GetIssueResponse.xsd',
      'GetServiceMethodsRequest.xsd',
      'GetServiceMethodsResponse.xsd',
    ],
  },
  'osn-2.0.0': {
    folder: 'osn-2.0.0',
    namespace: 'http://www.promostandards.org/WSDL/OrderShipmentNotificationService/2.0.0/',
    entry: ['GetOrderShipmentNotificationRequest.xsd', 'GetOrderShipmentNotificationResponse.xsd'],
  },
  // 2.1.0: the request and response elements in M, everything inside them in M + SharedObjects/.
  'osn-2.1.0': {
    folder: 'osn-2.1.0',
    namespace: 'http://www.promostandards.org/WSDL/OrderShipmentNotificationService/2.1.0/',
    entry: [
      'GetOrderShipmentNotificationRequest.xsd',
      'GetOrderShipmentNotificationResponse.xsd',
      'GetServiceMethodsRequest.xsd',
      'GetServiceMethodsResponse.xsd',
      'SendAdvanceShipmentNotificationRequest.xsd',
      'SendAdvanceShipmentNotificationResponse.xsd',
    ],
  },
};

export interface SchemaSet {
  namespace: string;
  /** Schema document for the service namespace (it includes the others). */
  service: XMLFileInfo;
  /** Every file the service schema refers to. */
  files: XMLFileInfo[];
}

const SERVICE_SCHEMA_FILE = 'service-entry.xsd';

/** One schema document including several XSDs of the same namespace (libxml2 imports a namespace only once). */
export function includingSchema(namespace: string, locations: string[]): XMLFileInfo {
  const includes = locations.map((location) => `<xs:include schemaLocation="${location}"/>`).join('');
  return {
    fileName: SERVICE_SCHEMA_FILE,
    contents: `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="${namespace}" elementFormDefault="qualified">${includes}</xs:schema>`,
  };
}

const cache = new Map<XsdService, Promise<SchemaSet>>();

async function loadOfficial(service: XsdService): Promise<SchemaSet> {
  const { folder, namespace, entry } = SERVICES[service];
  const dir = new URL(`${folder}/`, ROOT);
  const names = (await readdir(dir)).filter((name) => name.endsWith('.xsd'));
  const files = await Promise.all(names.map(async (fileName) => ({ fileName, contents: await readFile(new URL(fileName, dir), 'utf8') })));
  return { namespace, service: includingSchema(namespace, entry), files };
}

/** The official XSDs of a service, read once. */
export function officialSchemas(service: XsdService): Promise<SchemaSet> {
  let set = cache.get(service);
  if (!set) {
    set = loadOfficial(service);
    cache.set(service, set);
  }
  return set;
}

let envelopeSchema: Promise<string> | undefined;

/** Validates a whole SOAP 1.1 answer; returns libxml2's messages, empty when valid. */
export async function validateWith(xml: string, schemas: SchemaSet): Promise<string[]> {
  envelopeSchema ??= readFile(new URL('soap-envelope-1.1.xsd', import.meta.url), 'utf8');
  const envelope = (await envelopeSchema).replace(
    '<!--SERVICE-IMPORT-->',
    `<xs:import namespace="${schemas.namespace}" schemaLocation="${schemas.service.fileName}"/>`,
  );
  const result = await validateXML({
    xml: [{ fileName: 'answer.xml', contents: xml }],
    schema: [{ fileName: 'soap-envelope.xsd', contents: envelope }],
    preload: [schemas.service, ...schemas.files],
    maxMemoryPages: 4096,
  });
  return result.valid ? [] : result.errors.map((error) => error.message);
}

export async function validateSoapAnswer(service: XsdService, xml: string): Promise<string[]> {
  return validateWith(xml, await officialSchemas(service));
}
