// Writes a content tree (../content-tree.ts) as XML text, the one XML writer of every version's
// trees: each array `XArray` is an element holding its items, each named by the schema's item
// element; an element from another namespace (one a schema takes by ref, and everything inside it)
// is written with that namespace's prefix. An element with nothing in it is written empty
// (`<X/>`), an array without items too. Straight text, no XML library: bench/soap-builders.ts
// compares it with xmlbuilder2 and fast-xml-parser's builder (docs/benchmarks.md).
import { escapeText, formatBoolean, formatDecimal } from './xml-text.js';
import { formatDateTime } from '../xsd-datetime.js';
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
  /** Elements a schema repeats without an array around them (maxOccurs > 1): an array value is written as one element per item. */
  repeated?: ReadonlySet<string>;
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

export function treeXmlWriter({ itemNames = {}, prefixed, repeated = NONE }: TreeXmlOptions = {}): TreeXml {
  const { prefix = '', refs = NONE, typed = NONE } = prefixed ?? {};
  const hasRefs = refs.size > 0;
  const hasTyped = typed.size > 0;
  const hasRepeated = repeated.size > 0;
  // An answer names the same few arrays thousands of times: each item name is worked out once.
  const itemNameOf = new Map<string, string>();
  const itemName = (arrayName: string): string => {
    let item = itemNameOf.get(arrayName);
    if (item === undefined) {
      item = itemNames[arrayName] ?? arrayName.replace(/Array$/, '');
      itemNameOf.set(arrayName, item);
    }
    return item;
  };

  /** What the element `name` holds: `isPrefixed`, the element is. */
  function contentXml(name: string, value: Exclude<TreeValue, undefined>, isPrefixed: boolean): string {
    switch (typeof value) {
      case 'string':
        return escapeText(value);
      case 'number':
        return formatDecimal(value);
      case 'boolean':
        return formatBoolean(value);
      default:
        if (value instanceof Date) return formatDateTime(value);
        if (Array.isArray(value)) return itemsXml(itemName(name), value, isPrefixed);
        return treeXml(value, isPrefixed || (hasTyped && typed.has(name)));
    }
  }

  // The element loops below write their elements themselves rather than through elementXml: an
  // answer has hundreds of thousands of them (bench/soap-builders.ts).
  function itemsXml(item: string, items: readonly TreeValue[], inPrefixed: boolean): string {
    const isPrefixed = inPrefixed || (hasRefs && refs.has(item));
    const tag = isPrefixed ? prefix + item : item;
    let xml = '';
    for (const entry of items) {
      if (entry === undefined || Array.isArray(entry)) continue;
      const content = contentXml(item, entry, isPrefixed);
      xml += content === '' ? `<${tag}/>` : `<${tag}>${content}</${tag}>`;
    }
    return xml;
  }

  function treeXml(tree: Tree, inPrefixed = false): string {
    let xml = '';
    // for…in, not Object.entries: no array of pairs per element (a tree is a plain object literal).
    for (const name in tree) {
      const value = tree[name];
      if (value === undefined) continue;
      if (hasRepeated && Array.isArray(value) && repeated.has(name)) {
        xml += itemsXml(name, value, inPrefixed);
        continue;
      }
      const isPrefixed = inPrefixed || (hasRefs && refs.has(name));
      const tag = isPrefixed ? prefix + name : name;
      const content = contentXml(name, value, isPrefixed);
      xml += content === '' ? `<${tag}/>` : `<${tag}>${content}</${tag}>`;
    }
    return xml;
  }

  function elementXml(name: string, value: Exclude<TreeValue, undefined>, inPrefixed = false): string {
    const isPrefixed = inPrefixed || (hasRefs && refs.has(name));
    const tag = isPrefixed ? prefix + name : name;
    const content = contentXml(name, value, isPrefixed);
    return content === '' ? `<${tag}/>` : `<${tag}>${content}</${tag}>`;
  }

  function arrayXml(name: string, items: readonly TreeValue[], attributes = '', inPrefixed = false): string {
    const isPrefixed = inPrefixed || (hasRefs && refs.has(name));
    const tag = isPrefixed ? prefix + name : name;
    const xml = itemsXml(itemName(name), items, isPrefixed);
    return xml === '' ? `<${tag}${attributes}/>` : `<${tag}${attributes}>${xml}</${tag}>`;
  }

  return { elementXml, arrayXml, treeXml };
}
