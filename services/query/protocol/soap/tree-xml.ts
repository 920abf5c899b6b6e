// Writes a content tree (../content-tree.ts) as XML text, the one XML writer of every version's
// trees: each array `XArray` is an element holding its items, each named by the schema's item
// element; an element from another namespace (one a schema takes by ref, and everything inside it)
// is written with that namespace's prefix.
import { escapeText, formatBoolean, formatDateTime, formatDecimal } from './xml-text.js';
import type { Tree, TreeValue } from '../content-tree.js';

/** The elements written with `prefix`: those `refs` names and all inside them, and the children of those `typed` names (elements of another namespace's type). */
export interface PrefixedElements {
  prefix: string;
  refs: ReadonlySet<string>;
  typed: ReadonlySet<string>;
}

export interface TreeXmlOptions {
  /** The item element of each array whose name is not the array's less "Array". */
  itemNames?: Readonly<Record<string, string>>;
  prefixed?: PrefixedElements;
}

export interface TreeXml {
  /** The element `name` holding `value`; `inPrefixed`: its parent's children are prefixed. */
  elementXml(name: string, value: Exclude<TreeValue, undefined>, inPrefixed?: boolean): string;
  /** The array element `name` holding its items; `attributes` (e.g. a namespace declaration) on it. */
  arrayXml(name: string, items: readonly TreeValue[], attributes?: string, inPrefixed?: boolean): string;
  /** The elements of `tree`. */
  treeXml(tree: Tree, inPrefixed?: boolean): string;
}

const NONE: ReadonlySet<string> = new Set();

export function treeXmlWriter({ itemNames = {}, prefixed }: TreeXmlOptions = {}): TreeXml {
  const { prefix = '', refs = NONE, typed = NONE } = prefixed ?? {};
  const itemName = (arrayName: string): string => itemNames[arrayName] ?? arrayName.replace(/Array$/, '');

  function elementXml(name: string, value: Exclude<TreeValue, undefined>, inPrefixed = false): string {
    if (Array.isArray(value)) return arrayXml(name, value, '', inPrefixed);
    const isPrefixed = inPrefixed || refs.has(name);
    const tag = isPrefixed ? prefix + name : name;
    let content: string;
    if (typeof value === 'string') content = escapeText(value);
    else if (typeof value === 'number') content = formatDecimal(value);
    else if (typeof value === 'boolean') content = formatBoolean(value);
    else if (value instanceof Date) content = formatDateTime(value);
    else content = treeXml(value, isPrefixed || typed.has(name));
    return content === '' ? `<${tag}/>` : `<${tag}>${content}</${tag}>`;
  }

  function arrayXml(name: string, items: readonly TreeValue[], attributes = '', inPrefixed = false): string {
    const isPrefixed = inPrefixed || refs.has(name);
    const tag = isPrefixed ? prefix + name : name;
    const item = itemName(name);
    let xml = '';
    for (const entry of items) if (entry !== undefined && !Array.isArray(entry)) xml += elementXml(item, entry, isPrefixed);
    return `<${tag}${attributes}>${xml}</${tag}>`;
  }

  function treeXml(tree: Tree, inPrefixed = false): string {
    let xml = '';
    for (const [name, value] of Object.entries(tree)) if (value !== undefined) xml += elementXml(name, value, inPrefixed);
    return xml;
  }

  return { elementXml, arrayXml, treeXml };
}
