// Writes an answer tree (../answer-tree.ts) as XML elements of one namespace prefix: each array
// `XArray` is an element holding its items, each named by the schema's item element.
import { escapeText, formatBoolean, formatDateTime, formatDecimal } from '../../../protocol/soap/xml-text.js';
import type { Tree, TreeValue } from '../answer-tree.js';

/** The item element of each array the 2.0.0 answers hold, where it is not the array's name less "Array". */
const ITEM_NAMES: Record<string, string> = { OrderContactArray: 'Contact', ServiceMethodArray: 'serviceMethod' };

export function itemName(arrayName: string): string {
  return ITEM_NAMES[arrayName] ?? arrayName.replace(/Array$/, '');
}

function valueXml(value: Exclude<TreeValue, undefined | TreeValue[]>, prefix: string): string {
  if (typeof value === 'string') return escapeText(value);
  if (typeof value === 'number') return formatDecimal(value);
  if (typeof value === 'boolean') return formatBoolean(value);
  if (value instanceof Date) return formatDateTime(value);
  return treeXml(value, prefix);
}

const elementXml = (name: string, content: string) => (content === '' ? `<${name}/>` : `<${name}>${content}</${name}>`);

/** The array element `name` holding its items; `attributes` (e.g. a namespace declaration) on it. */
export function arrayXml(name: string, items: readonly TreeValue[], prefix: string, attributes = ''): string {
  const item = prefix + itemName(name);
  let xml = '';
  for (const entry of items) if (entry !== undefined && !Array.isArray(entry)) xml += elementXml(item, valueXml(entry, prefix));
  return `<${prefix}${name}${attributes}>${xml}</${prefix}${name}>`;
}

/** The elements of `tree`, each name with `prefix` (e.g. "S:"). */
export function treeXml(tree: Tree, prefix: string): string {
  let xml = '';
  for (const [name, value] of Object.entries(tree)) {
    if (value === undefined) continue;
    xml += Array.isArray(value) ? arrayXml(name, value, prefix) : elementXml(prefix + name, valueXml(value, prefix));
  }
  return xml;
}
