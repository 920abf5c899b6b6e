// The one XML writer of content trees, on its own: what each kind of value becomes, arrays and
// their item elements, empty and absent values, and the prefixes of another namespace's elements.
import { describe, expect, it } from 'vitest';
import { treeXmlWriter } from './tree-xml.js';

describe('treeXmlWriter', () => {
  const { elementXml, arrayXml, treeXml } = treeXmlWriter({ itemNames: { ContactArray: 'Contact' } });

  it('writes each key as an element in key order, values in their XSD lexical forms, absent values not at all', () => {
    const at = new Date(Date.UTC(2025, 1, 3, 4, 5, 6, 7));
    expect(treeXml({ b: 'x & <y>', a: 1e-7, c: true, d: false, e: at, f: undefined, g: -0 })).toBe(
      '<b>x &amp; &lt;y&gt;</b><a>0.0000001</a><c>true</c><d>false</d><e>2025-02-03T04:05:06.007Z</e><g>0</g>',
    );
  });

  it('writes an element with nothing in it empty: an empty string, a tree of absent values, an array without items', () => {
    expect(treeXml({ name: '', Item: { a: undefined }, ItemArray: [], Other: { b: 'x' } })).toBe('<name/><Item/><ItemArray/><Other><b>x</b></Other>');
    expect(arrayXml('StatusArray', [], ' xmlns="urn:s"')).toBe('<StatusArray xmlns="urn:s"/>');
  });

  it('names an array\'s items after the array less "Array", or as the schema names them', () => {
    expect(elementXml('StatusArray', [{ id: 1 }, { id: 2 }])).toBe('<StatusArray><Status><id>1</id></Status><Status><id>2</id></Status></StatusArray>');
    expect(arrayXml('ContactArray', [{ name: 'A' }], ' xmlns="urn:c"')).toBe('<ContactArray xmlns="urn:c"><Contact><name>A</name></Contact></ContactArray>');
    expect(elementXml('NameArray', ['a', undefined, 'b'])).toBe('<NameArray><Name>a</Name><Name>b</Name></NameArray>');
  });

  it('prefixes the elements of another namespace: those taken by ref with all inside them, and the children of those of its type', () => {
    const shared = treeXmlWriter({ prefixed: { prefix: 'shar:', refs: new Set(['Ref', 'Message']), typed: new Set(['Address']) } });
    expect(
      shared.treeXml({
        own: 'o',
        Ref: { inner: 'i', Deep: { x: 1 } },
        Address: { line: 'l', Nested: { y: 2 } },
        MessageArray: [{ code: 200 }],
      }),
    ).toBe(
      '<own>o</own><shar:Ref><shar:inner>i</shar:inner><shar:Deep><shar:x>1</shar:x></shar:Deep></shar:Ref>' +
        '<Address><shar:line>l</shar:line><shar:Nested><shar:y>2</shar:y></shar:Nested></Address>' +
        '<MessageArray><shar:Message><shar:code>200</shar:code></shar:Message></MessageArray>',
    );
    expect(shared.elementXml('Field', 'v', true)).toBe('<shar:Field>v</shar:Field>');
  });
});
