// A 2.0.0 answer's content as one tree, written as XML (SOAP) and as JSON (the twins) alike, so the
// two cannot differ: keys in XSD order, each XArray an array of its X items, absent values left
// out (undefined). JSON.stringify writes it as it is (Dates as ISO 8601, numbers and booleans
// native); ./soap/tree-xml.ts writes its elements.
export type TreeValue = string | number | boolean | Date | Tree | TreeValue[] | undefined;
export interface Tree {
  [element: string]: TreeValue;
}
