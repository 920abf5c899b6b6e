import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { element, escapeText, formatDecimal, textElement } from './xml-text.js';
import { parseXsdDateTime } from '../xsd-datetime.js';

describe('formatDecimal', () => {
  it.each([
    [0, '0'],
    [-0, '0'],
    [42, '42'],
    [-3.25, '-3.25'],
    [0.0000001, '0.0000001'],
    [1.5e-7, '0.00000015'],
    [-2.5e-8, '-0.000000025'],
    [1e21, '1000000000000000000000'],
    [1.234e22, '12340000000000000000000'],
    [123456.789, '123456.789'],
    [Number.MAX_SAFE_INTEGER, '9007199254740991'],
  ])('%s -> %s', (value, text) => {
    expect(formatDecimal(value)).toBe(text);
  });

  it('writes any finite number without an exponent, as the same number', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
        const text = formatDecimal(value);
        expect(text).toMatch(/^-?\d+(\.\d+)?$/);
        expect(Number(text)).toBe(value === 0 ? 0 : value);
      }),
      { numRuns: 2_000 },
    );
  });

  it('refuses what xsd:decimal cannot say', () => {
    expect(() => formatDecimal(Number.NaN)).toThrow();
    expect(() => formatDecimal(Infinity)).toThrow();
  });
});

describe('escapeText', () => {
  it('escapes markup and keeps quotes', () => {
    expect(escapeText(`a&b<c>d"e'f`)).toBe(`a&amp;b&lt;c&gt;d"e'f`);
  });

  it('keeps a CR through XML line-end normalisation', () => {
    expect(escapeText('a\r\nb')).toBe('a&#13;\nb');
  });

  it('replaces characters XML cannot carry', () => {
    expect(escapeText('a\u0000b\u001Fc\uFFFEd\uD800e')).toBe('a\uFFFDb\uFFFDc\uFFFDd\uFFFDe');
    expect(escapeText('tab\tnl\n 😀')).toBe('tab\tnl\n 😀');
  });

  // Text without a character the quick test matches is returned untouched: that test must match
  // every character either replacement changes. A leading '&' forces the replacements to run.
  const replaced = (text: string) => escapeText(`&${text}`).slice('&amp;'.length);
  /** XML 1.0's Char production, for one UTF-16 code unit (a surrogate alone is not a character). */
  const isXmlChar = (c: number) => c === 0x9 || c === 0xa || c === 0xd || (c >= 0x20 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd);

  it('returns untouched only text the replacements would leave as it is, for every UTF-16 code unit', () => {
    const missed: string[] = [];
    const wrong: string[] = [];
    for (let c = 0; c <= 0xffff; c++) {
      const ch = String.fromCharCode(c);
      if (escapeText(ch) !== replaced(ch)) missed.push(c.toString(16));
      const changes = !isXmlChar(c) || '&<>\r'.includes(ch);
      if ((replaced(ch) !== ch) !== changes) wrong.push(c.toString(16));
    }
    expect({ missed, wrong }).toEqual({ missed: [], wrong: [] });
  });

  it.each([
    ['a surrogate pair', 'a😀b', 'a😀b'],
    ['an astral character beyond the emoji', '\u{10FFFF}\u{10000}', '\u{10FFFF}\u{10000}'],
    ['a lone high surrogate at the end', 'a\uD83D', 'a\uFFFD'],
    ['a lone low surrogate at the start', '\uDE00a', '\uFFFDa'],
    ['a pair the wrong way round', '\uDE00\uD83D', '\uFFFD\uFFFD'],
    ['a pair and a lone high surrogate', '😀\uD83D', '😀\uFFFD'],
    ['two high surrogates before a low one', '\uD83D\uD83D\uDE00', '\uFFFD😀'],
  ])('%s: the quick test and the replacements agree', (_name, text, escaped) => {
    expect(escapeText(text)).toBe(escaped);
    expect(replaced(text)).toBe(escaped);
  });
});

describe('elements', () => {
  it('writes empty text as the empty element, and escapes only element text', () => {
    expect(textElement('a', '')).toBe('<a/>');
    expect(textElement('a', 'x&y')).toBe('<a>x&amp;y</a>');
    expect(element('a', '<b>1</b>')).toBe('<a><b>1</b></a>');
    expect(element('a', '')).toBe('<a/>');
  });
});

describe('parseXsdDateTime', () => {
  it.each([
    ['2025-02-01T10:00:00Z', '2025-02-01T10:00:00.000Z'],
    ['2025-02-01T10:00:00', '2025-02-01T10:00:00.000Z'],
    ['2025-02-01T10:00:00.1234+02:00', '2025-02-01T08:00:00.123Z'],
    ['2025-02-01T00:30:00-05:30', '2025-02-01T06:00:00.000Z'],
    ['2024-02-29T23:59:59Z', '2024-02-29T23:59:59.000Z'],
    ['2025-12-31T24:00:00Z', '2026-01-01T00:00:00.000Z'],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
  ])('%s', (text, iso) => {
    expect(parseXsdDateTime(text)?.toISOString()).toBe(iso);
  });

  it.each([
    '2025-02-29T00:00:00Z',
    '2025-13-01T00:00:00Z',
    '2025-01-01T24:00:01Z',
    '2025-01-01T10:60:00Z',
    '2025-01-01T10:00:60Z',
    '2025-01-01T10:00:00+15:00',
    '0000-01-01T00:00:00Z',
    '02025-01-01T00:00:00Z',
    '2025-01-01',
    '2025-01-01T10:00Z',
    ' 2025-01-01T10:00:00Z',
    '1738400000',
  ])('refuses %s', (text) => {
    expect(parseXsdDateTime(text)).toBeUndefined();
  });
});
