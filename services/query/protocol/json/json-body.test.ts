// The JSON writer of content trees: item by item, the bytes of one JSON.stringify of the body,
// its empty arrays left out (2.0.0) or written (1.0.0).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AnswerChunks } from '../../http/answer-chunks.js';
import { writeJsonArrays, type EmptyArrays } from './json-body.js';

const written = (arrays: Array<[string, unknown[]]>, emptyArrays: EmptyArrays = 'left out') => {
  const out = new AnswerChunks();
  writeJsonArrays(out, arrays, emptyArrays);
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

  it('writes what JSON.stringify writes of the whole body, empty arrays and all, when they are written', () => {
    const item = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.date({ noInvalidDate: true }), fc.dictionary(fc.string(), fc.string()));
    const name = fc.string().filter((text) => !/^(0|[1-9]\d*)$/.test(text));
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(name, fc.array(item, { maxLength: 3 })), { selector: ([n]) => n, maxLength: 3 }), (arrays) => {
        expect(written(arrays, 'written')).toBe(JSON.stringify(Object.fromEntries(arrays)));
      }),
    );
    expect(written([['orders', []]], 'written')).toBe('{"orders":[]}');
  });

  it('writes an answer with nothing in it as an empty object', () => {
    expect(written([['OrderStatusArray', []], ['ServiceMessageArray', []]])).toBe('{}');
    expect(written([['OrderStatusArray', []], ['ServiceMessageArray', [{ code: 200 }]]])).toBe('{"ServiceMessageArray":[{"code":200}]}');
  });
});

describe('writeJsonArrays, long arrays', () => {
  it('writes arrays of many items, across the batches it writes them in, as JSON.stringify does', () => {
    for (const length of [63, 64, 65, 128, 129, 1000]) {
      const items = Array.from({ length }, (_, i) => ({ n: i, text: `item ${i} "q" \u2028`, at: i % 2 === 0 ? undefined : 'x' }));
      expect(written([['A', items], ['B', items.slice(0, 70)]])).toBe(JSON.stringify({ A: items, B: items.slice(0, 70) }));
    }
  });
});
