// Lexical forms for answer values and the elements that hold them: XSD types want no exponent in
// decimals (dateTimes: ../xsd-datetime.ts), and XML 1.0 cannot carry some characters at all.

// Characters XML 1.0 forbids even as references (C0 controls but tab/LF/CR, lone surrogates, FFFE/FFFF).
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const FORBIDDEN_XML_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const NEEDS_ESCAPE = /[&<>\r]/g;
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#13;' };

// Any character either replacement above could touch (every surrogate, paired or not): text
// without one, nearly all of an answer, is returned as it is without running them.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const MAY_CHANGE = /[&<>\r\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/;

/** Escapes element text; characters XML cannot carry become U+FFFD so the answer stays well-formed. */
export function escapeText(value: string): string {
  if (!MAY_CHANGE.test(value)) return value;
  return value.replace(FORBIDDEN_XML_CHARS, '\uFFFD').replace(NEEDS_ESCAPE, (ch) => ESCAPES[ch] ?? ch);
}

/** An element holding `text` (escaped here), or the empty element when there is none. */
export function textElement(name: string, text: string): string {
  return text === '' ? `<${name}/>` : `<${name}>${escapeText(text)}</${name}>`;
}

/**
 * An element holding text that needs no escaping (numbers, booleans, dateTimes as formatted
 * here and by ../xsd-datetime.ts) or markup written already; the empty element when there is none.
 */
export function element(name: string, content: string): string {
  return content === '' ? `<${name}/>` : `<${name}>${content}</${name}>`;
}

export function formatBoolean(value: boolean): string {
  return value ? 'true' : 'false';
}

/**
 * xsd:decimal / xsd:integer text for a finite number, never in exponent form (1e-7 -> "0.0000001",
 * 1e21 -> "1000000000000000000000"). Uses the shortest round-trip digits JavaScript gives.
 */
export function formatDecimal(value: number): string {
  // Nearly every number of an answer: String writes it without an exponent (it uses one below 1e-6
  // and from 1e21), as it is.
  const magnitude = Math.abs(value);
  if (magnitude >= 1e-6 && magnitude < 1e21) return String(value);
  if (!Number.isFinite(value)) throw new RangeError(`not a finite decimal: ${value}`);
  if (Object.is(value, -0)) return '0';
  const text = String(value);
  const e = text.indexOf('e');
  if (e === -1) return text;
  const negative = text.startsWith('-');
  const mantissa = text.slice(negative ? 1 : 0, e);
  const exponent = Number(text.slice(e + 1));
  const point = mantissa.indexOf('.');
  const digits = point === -1 ? mantissa : mantissa.slice(0, point) + mantissa.slice(point + 1);
  // Position of the decimal point counted from the start of digits.
  const pointAt = (point === -1 ? mantissa.length : point) + exponent;
  let out: string;
  if (pointAt <= 0) out = `0.${'0'.repeat(-pointAt)}${digits}`;
  else if (pointAt >= digits.length) out = digits + '0'.repeat(pointAt - digits.length);
  else out = `${digits.slice(0, pointAt)}.${digits.slice(pointAt)}`;
  return negative ? `-${out}` : out;
}

