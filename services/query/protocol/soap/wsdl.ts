// The WSDLs and XSDs served, derived at start from the official files in wsdl/ (kept unchanged):
// soap:address becomes the deployment's endpoint, and the official four (OSS) or two (OSN)
// xsd:schema blocks - each importing the service namespace - become one block that includes the
// XSDs by a URL relative to the WSDL. node-soap cannot read answers with the several blocks;
// one block with xsd:include is equivalent, since every included XSD has the service namespace
// as its targetNamespace.
import { readdir, readFile } from 'node:fs/promises';

const WSDL_ROOT = new URL('../../../../wsdl/', import.meta.url);
const XSD_NS = 'http://www.w3.org/2001/XMLSchema';

export interface ServiceFiles {
  /** Folder under wsdl/ holding the official files. */
  folder: string;
  wsdlFile: string;
  /** Endpoint path, e.g. /api/promostandards/order-status; the XSDs are served under it. */
  endpointPath: string;
  /** The service and its version as a person names them, e.g. "Order Status 1.0.0". */
  title: string;
}

export interface ServedDocuments {
  wsdl: string;
  /** XSD file name -> content, served as <endpointPath>/<file name>. */
  schemas: ReadonlyMap<string, string>;
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
}

function lastSegment(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Derives the served WSDL text from the official one. Throws when the original is not shaped as expected. */
export function deriveWsdl(original: string, endpointUrl: string, endpointPath: string): string {
  const targetNamespace = /<wsdl:definitions\b[^>]*\stargetNamespace="([^"]+)"/.exec(original)?.[1];
  const types = /<wsdl:types>[\s\S]*?<\/wsdl:types>/.exec(original);
  if (!targetNamespace || !types) throw new Error('WSDL without targetNamespace or wsdl:types');
  const imports = [...types[0].matchAll(/<xsd:import\s+namespace="([^"]+)"\s+schemaLocation="([^"]+)"\s*\/>/g)];
  if (imports.length === 0 || imports.some((m) => m[1] !== targetNamespace)) {
    throw new Error('WSDL types expected to import only its own namespace');
  }
  // Relative to .../<service>?wsdl, "<service>/X.xsd" is .../<service>/X.xsd.
  const base = lastSegment(endpointPath);
  const includes = imports.map((m) => `\n\t\t\t<xsd:include schemaLocation="${escapeAttribute(`${base}/${m[2] ?? ''}`)}"/>`).join('');
  const oneSchema =
    `<wsdl:types>\n\t\t<xsd:schema xmlns:xsd="${XSD_NS}" targetNamespace="${targetNamespace}" elementFormDefault="qualified">` +
    `${includes}\n\t\t</xsd:schema>\n\t</wsdl:types>`;
  const addressPattern = /(<soap:address\s+location=")[^"]*("\s*\/>)/;
  if (!addressPattern.test(original)) throw new Error('WSDL without soap:address');
  // Function replacements: a '$' in the URL must not be read as a replacement pattern.
  return original.replace(types[0], () => oneSchema).replace(addressPattern, (_m, open: string, close: string) => open + escapeAttribute(endpointUrl) + close);
}

function schemaLocations(xml: string): string[] {
  return [...xml.matchAll(/schemaLocation="([^"]+)"/g)].map((m) => m[1] ?? '');
}

/** Reads one service's official files and derives what is served for the given public base URL. */
export async function loadServedDocuments(files: ServiceFiles, publicBaseUrl: string): Promise<ServedDocuments> {
  const folder = new URL(`${files.folder}/`, WSDL_ROOT);
  const names = (await readdir(folder)).filter((name) => name.endsWith('.xsd'));
  const schemas = new Map<string, string>();
  for (const name of names) schemas.set(name, await readFile(new URL(name, folder), 'utf8'));
  const original = await readFile(new URL(files.wsdlFile, folder), 'utf8');
  // Every schemaLocation, in the WSDL and inside the XSDs, must name a file served beside them.
  for (const location of [original, ...schemas.values()].flatMap(schemaLocations)) {
    if (!schemas.has(location)) throw new Error(`${files.folder}: schemaLocation ${location} names no served XSD`);
  }
  const endpointUrl = publicBaseUrl.replace(/\/+$/, '') + files.endpointPath;
  return { wsdl: deriveWsdl(original, endpointUrl, files.endpointPath), schemas };
}
