// Writes a content tree (../content-tree.ts) as XML elements of one namespace prefix: each array
// `XArray` is an element holding its items, each named by the schema's item element.
import { escapeText, formatBoolean, formatDateTime, formatDecimal } from './xml-text.js';
import type { Tree, TreeValue } from '../content-tree.js';

export interface TreeXml {
  /** The array element `name` holding its items; `attributes` (e.g. a namespace declaration) on it. */
  arrayXml(name: string, items: readonly TreeValue[], prefix: string, attributes?: string): string;
  /** The elements of `tree`, each name with `prefix` (e.g. "S:"). */
  treeXml(tree: Tree, prefix: string): string;
}

const elementXml = (name: string, content: string) => (content === '' ? `<${name}/>` : `<${name}>${content}</${name}>`);

/** The writer of a version's trees; `itemNames`: the item element of each array whose name is not the array's less "Array". */
export function treeXmlWriter(itemNames: Readonly<Record<string, string>>): TreeXml {
  const itemName = (arrayName: string): string => itemNames[arrayName] ?? arrayName.replace(/Array$/, '');

  function valueXml(value: Exclude<TreeValue, undefined | TreeValue[]>, prefix: string): string {
    if (typeof value === 'string') return escapeText(value);
    if (typeof value === 'number') return formatDecimal(value);
    if (typeof value === 'boolean') return formatBoolean(value);
    if (value instanceof Date) return formatDateTime(value);
    return treeXml(value, prefix);
  }

  function arrayXml(name: string, items: readonly TreeValue[], prefix: string, attributes = ''): string {
    const item = prefix + itemName(name);
    let xml = '';
    for (const entry of items) if (entry !== undefined && !Array.isArray(entry)) xml += elementXml(item, valueXml(entry, prefix));
    return `<${prefix}${name}${attributes}>${xml}</${prefix}${name}>`;
  }

  function treeXml(tree: Tree, prefix: string): string {
    let xml = '';
    for (const [name, value] of Object.entries(tree)) {
      if (value === undefined) continue;
      xml += Array.isArray(value) ? arrayXml(name, value, prefix) : elementXml(prefix + name, valueXml(value, prefix));
    }
    return xml;
  }

  return { arrayXml, treeXml };
}
