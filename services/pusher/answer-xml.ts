// Reads a receiver's answer as a tree of elements named by namespace and local name, whatever
// prefixes the receiver chose. Only what is needed to judge it (docs/design/osn-2.1.0.md §2):
// no DTD (an answer with one is not read at all, so no entity of its can expand), the five
// predefined entities and character references decoded by hand, comments and processing
// instructions skipped, and a bounded depth. The answer's size is bounded by the sender.
import { XMLParser } from 'fast-xml-parser';

export interface AnswerElement {
  /** The namespace URI, '' for none. */
  namespace: string;
  /** The local name, prefix removed. */
  name: string;
  children: AnswerElement[];
  /** The element's own text (CDATA included), entities decoded, trimmed. */
  text: string;
}

/** A SOAP answer is 6 levels deep (Envelope, Body, response, array, message, field). */
const MAX_DEPTH = 32;

const DECLARATION = /<!\s*(?:DOCTYPE|ENTITY)/i;
const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const REFERENCE = /&(?:(lt|gt|amp|quot|apos)|#([0-9]+)|#x([0-9a-fA-F]+));/g;

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  // Decoded below, the predefined five and character references only.
  processEntities: false,
  // The parser lets through one level more than maxNestedTags.
  maxNestedTags: MAX_DEPTH - 1,
  ignoreDeclaration: true,
  ignorePiTags: true,
});

/** The five predefined entities and character references; a reference to no character becomes U+FFFD (an answer is read leniently). */
function decode(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(REFERENCE, (_match, named: string | undefined, dec: string | undefined, hex: string | undefined) => {
    if (named) return PREDEFINED[named] ?? '';
    const cp = dec !== undefined ? Number(dec) : parseInt(hex ?? '', 16);
    return cp > 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) ? String.fromCodePoint(cp) : '\uFFFD';
  });
}

type OrderedNode = Record<string, unknown>;

function toElements(nodes: unknown, scope: ReadonlyMap<string, string>): AnswerElement[] {
  const out: AnswerElement[] = [];
  if (!Array.isArray(nodes)) return out;
  for (const node of nodes as OrderedNode[]) {
    const qname = Object.keys(node).find((key) => key !== ':@' && key !== '#text');
    if (qname === undefined) continue;
    const attributes = (node[':@'] ?? {}) as Record<string, string>;
    let inner = scope;
    for (const [attribute, value] of Object.entries(attributes)) {
      if (attribute !== 'xmlns' && !attribute.startsWith('xmlns:')) continue;
      if (inner === scope) inner = new Map(scope);
      (inner as Map<string, string>).set(attribute === 'xmlns' ? '' : attribute.slice(6), decode(value));
    }
    const colon = qname.indexOf(':');
    const prefix = colon < 0 ? '' : qname.slice(0, colon);
    const content = node[qname];
    let text = '';
    if (Array.isArray(content)) for (const part of content as OrderedNode[]) if (typeof part['#text'] === 'string') text += part['#text'];
    out.push({ namespace: inner.get(prefix) ?? '', name: qname.slice(colon + 1), children: toElements(content, inner), text: decode(text).trim() });
  }
  return out;
}

/** The document's root element, or undefined when the text is not XML this reads (malformed, a DTD, too deep). */
export function readAnswerXml(xml: string): AnswerElement | undefined {
  if (DECLARATION.test(xml)) return undefined;
  let ordered: unknown;
  try {
    // Validated first: the parser alone pairs a mismatched end tag with whatever is open.
    ordered = parser.parse(xml, true);
  } catch {
    return undefined;
  }
  const roots = toElements(ordered, new Map([['xml', 'http://www.w3.org/XML/1998/namespace']]));
  return roots.length === 1 ? roots[0] : undefined;
}

/** The first child of that local name, in any namespace (receivers vary in how they qualify children). */
export function childNamed(parent: AnswerElement, name: string): AnswerElement | undefined {
  return parent.children.find((child) => child.name === name);
}
