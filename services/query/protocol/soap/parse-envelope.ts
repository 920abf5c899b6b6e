// Reads a SOAP request safely and leniently: no DTDs or entity declarations at all (XXE, billion
// laughs), a bounded depth, only the XML-predefined entities and character references, and names
// matched by local name whatever prefix or namespace a client uses. Well-formedness is checked
// (fast-xml-parser's validator) before anything is read.
import { XMLParser, type EntityDecoderOptions } from 'fast-xml-parser';
import { MALFORMED_REQUEST, SoapClientFault } from './soap-faults.js';

export interface XmlElement {
  /** Local name, prefix removed. */
  name: string;
  /** Attributes by local name. */
  attributes: Record<string, string>;
  children: XmlElement[];
  /** Concatenated direct text (trimmed, entities decoded). */
  text: string;
}

/** Deeper requests are refused; a real OSS/OSN request is 4 levels deep (Envelope, Body, request, field). */
export const MAX_DEPTH = 32;

const DECLARATION = /<!\s*(?:DOCTYPE|ENTITY)/i;
// C0 controls XML 1.0 never allows, even inside text.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const FORBIDDEN_RAW = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;
const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const REFERENCE = /&(?:(lt|gt|amp|quot|apos)|#([0-9]+)|#x([0-9a-fA-F]+));/g;

function isXmlChar(cp: number): boolean {
  return cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
}

// Replaces the parser's entity table: the five predefined entities and character references only;
// any DTD entity reaching it is an error (the raw-text check should already have refused it).
const entityDecoder: EntityDecoderOptions = {
  setExternalEntities() {},
  addInputEntities() {
    throw new Error('entity declarations are refused');
  },
  reset() {},
  setXmlVersion() {},
  decode(text: string): string {
    if (!text.includes('&')) return text;
    return text.replace(REFERENCE, (_match, named: string | undefined, dec: string | undefined, hex: string | undefined) => {
      if (named) return PREDEFINED[named] ?? '';
      const cp = dec !== undefined ? Number(dec) : parseInt(hex ?? '', 16);
      if (!isXmlChar(cp)) throw new Error('character reference to a character XML does not allow');
      return String.fromCodePoint(cp);
    });
  },
};

const parser = new XMLParser({
  preserveOrder: true,
  removeNSPrefix: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: { enabled: true },
  entityDecoder,
  // The parser lets through one level more than maxNestedTags.
  maxNestedTags: MAX_DEPTH - 1,
  ignoreDeclaration: true,
  ignorePiTags: true,
});

type OrderedNode = Record<string, unknown>;

function toElements(nodes: unknown): XmlElement[] {
  const out: XmlElement[] = [];
  if (!Array.isArray(nodes)) return out;
  for (const node of nodes as OrderedNode[]) {
    const name = Object.keys(node).find((key) => key !== ':@' && key !== '#text');
    if (name === undefined) continue;
    const content = node[name];
    const children = toElements(content);
    let text = '';
    if (Array.isArray(content)) {
      for (const part of content as OrderedNode[]) {
        if (typeof part['#text'] === 'string') text += part['#text'];
      }
    }
    const attributes = (node[':@'] ?? {}) as Record<string, string>;
    out.push({ name, attributes, children, text });
  }
  return out;
}

/** Parses a request document; refuses what is not XML we are willing to read. */
export function parseXml(xml: string): XmlElement[] {
  if (DECLARATION.test(xml) || FORBIDDEN_RAW.test(xml)) throw new SoapClientFault(MALFORMED_REQUEST);
  let ordered: unknown;
  try {
    // Validated first (end tags match their start tags, one root...): the parser alone pairs a
    // mismatched end tag with whatever is open, which a gateway in front may read differently.
    ordered = parser.parse(xml, true);
  } catch {
    throw new SoapClientFault(MALFORMED_REQUEST);
  }
  return toElements(ordered);
}

/** The operation element: the first element inside the Body of a SOAP envelope. */
export function operationElement(xml: string): XmlElement {
  const roots = parseXml(xml);
  const envelope = roots.length === 1 ? roots[0] : undefined;
  const body = envelope?.name === 'Envelope' ? envelope.children.find((child) => child.name === 'Body') : undefined;
  const operation = body?.children[0];
  if (!operation) throw new SoapClientFault(MALFORMED_REQUEST);
  return operation;
}

/** A child's text by local name; empty and xsi:nil elements count as absent. */
export function childText(parent: XmlElement, name: string): string | undefined {
  const child = parent.children.find((c) => c.name === name);
  if (!child) return undefined;
  const nil = child.attributes['nil'];
  if (nil === 'true' || nil === '1') return undefined;
  return child.text === '' ? undefined : child.text;
}

/**
 * Markup a request may hold ('<' of tags, comments and declarations alike): the largest legitimate
 * one (an OSN 2.0.0 request from zeep or node-soap, namespaces declared on each element, a
 * WS-Security header) has under 60; a body built to make the parser work has thousands.
 */
export const MAX_MARKUP = 200;

/**
 * Attributes a request may hold, counted by their '=' (namespace declarations included): a
 * request written by hand holds 4 or 5, zeep's and node-soap's pass well under the bound, and a
 * text field (64 characters at most) all '=' still leaves room; a single start tag with a thousand
 * attributes costs the parser about as much as a thousand elements (bench/soap-parser.ts).
 */
export const MAX_ATTRIBUTES = 200;

/** Whether `text` holds more than `bound` of `char` (one pass of indexOf, stopping at the bound). */
function holdsMoreThan(text: string, char: string, bound: number): boolean {
  let count = 0;
  for (let at = text.indexOf(char); at !== -1; at = text.indexOf(char, at + 1)) {
    if (++count > bound) return true;
  }
  return false;
}

/**
 * Refuses, before any parsing, a body whose markup or attributes are out of proportion to any
 * request (cheap whatever the body). The parser itself refuses nesting deeper than 32.
 */
export function refuseDisproportionate(xml: string): void {
  if (holdsMoreThan(xml, '<', MAX_MARKUP) || holdsMoreThan(xml, '=', MAX_ATTRIBUTES)) throw new SoapClientFault(MALFORMED_REQUEST);
}

/**
 * Request bytes to text. Without a charset (or with utf-8) the bytes must be valid UTF-8; another
 * charset is honoured when Node knows it.
 */
export function decodeRequestBody(body: Buffer, contentType: string | undefined): string {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '')?.[1] ?? 'utf-8';
  try {
    return new TextDecoder(charset, { fatal: true }).decode(body);
  } catch {
    throw new SoapClientFault(MALFORMED_REQUEST);
  }
}
