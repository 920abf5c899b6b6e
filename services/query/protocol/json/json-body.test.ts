// The JSON writer of content trees: item by item, the bytes of one JSON.stringify of the body
// without its empty arrays.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AnswerChunks } from '../../http/answer-chunks.js';
import { writeJsonArrays } from './json-body.js';

const written = (arrays: Array<[string, unknown[]]>) => {
  const out = new AnswerChunks();
  writeJsonArrays(out, arrays);
  return out.bytes().toString('utf8');
};

describe('writeJsonArrays', () => {
  it('writes what JSON.stringify writes of the body, empty arrays left out', () => {
    const item = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.dictionary(fc.string(), fc.string()));
    // Names as an answer's are (OrderStatusArray): JavaScript puts integer-like keys of an object
    // first, so JSON.stringify would not keep the order of '0' and '' that the writer keeps.
    const name = fc.string().filter((text) => !/^(0|[1-9]\d*)$/.test(text));
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(name, fc.array(item, { maxLength: 3 })), { selector: ([n]) => n, maxLength: 3 }), (arrays) => {
        const body = Object.fromEntries(arrays.filter(([, items]) => items.length > 0));
        expect(written(arrays)).toBe(JSON.stringify(body));
      }),
    );
  });

  it('writes an answer with nothing in it as an empty object', () => {
    expect(written([['OrderStatusArray', []], ['ServiceMessageArray', []]])).toBe('{}');
    expect(written([['OrderStatusArray', []], ['ServiceMessageArray', [{ code: 200 }]]])).toBe('{"ServiceMessageArray":[{"code":200}]}');
  });
});
