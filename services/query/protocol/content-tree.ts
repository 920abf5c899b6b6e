// An answer's content as one tree, written as XML (SOAP, ./soap/tree-xml.ts) and as JSON (the
// twins, JSON.stringify or ./json/json-body.ts) alike, so the two cannot differ: keys in XSD
// order, each XArray an array of its X items, absent values left out (undefined). JSON.stringify
// writes it as it is (Dates as ISO 8601, numbers and booleans native).
export type TreeValue = string | number | boolean | Date | Tree | TreeValue[] | undefined;
export interface Tree {
  [element: string]: TreeValue;
}
