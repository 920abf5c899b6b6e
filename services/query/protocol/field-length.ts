// The longest field any version reads (a login's id and password, a reference number): no stored
// value is longer, so a longer one is refused or finds nothing before any work is done.

/** The longest an argument may be, in characters (code points, as XSD maxLength counts them). */
export const MAX_FIELD_LENGTH = 64;

/** Longer than MAX_FIELD_LENGTH code points (counted only when its UTF-16 length could be). */
export function fieldTooLong(value: string): boolean {
  return value.length > MAX_FIELD_LENGTH && [...value].length > MAX_FIELD_LENGTH;
}
