// Answers are first shaped as a plain object tree (key order = element order, arrays = repeated
// elements, '@'-keys = attributes), then rendered. The bench renders the same tree with
// xmlbuilder2 and fast-xml-parser; fast-xml-parser's XMLBuilder was the faster (see bench/).
import { XMLBuilder } from 'fast-xml-parser';
import { escapeText } from './xml-text.js';

export type XmlValue = string | XmlNode | XmlNode[];
export interface XmlNode {
  [name: string]: XmlValue;
}

const builder = new XMLBuilder({
  attributeNamePrefix: '@',
  textNodeName: '#',
  ignoreAttributes: false,
  suppressEmptyNode: true,
  // Escaping is ours: the builder's own would leave characters XML cannot carry in place.
  processEntities: false,
  tagValueProcessor: (_name, value) => escapeText(String(value)),
});

const DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';

/** Renders a document; attribute values must be constants that need no escaping. */
export function renderXml(tree: XmlNode): string {
  return DECLARATION + (builder.build(tree) as string);
}
