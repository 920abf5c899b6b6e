// The values a 1.0.0 content tree is built of, SOAP's and JSON's alike: a value its schema requires
// (the XSD's, the JSON route's response schema's) must be there, else the answer fails as an
// internal error (500) rather than go out incomplete; a stored number that is no XSD decimal is
// left out.

/** `value`, which the answer's schema requires; a view without it fails the answer. */
export function required<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new Error(`answer does not fit its schema: "${name}" is required`);
  return value;
}

/** A finite number, or undefined (no element, no key). */
export const finite = (value: number | undefined): number | undefined => (value !== undefined && Number.isFinite(value) ? value : undefined);
