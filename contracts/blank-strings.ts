import type { TSchema } from '@sinclair/typebox';

// erp-events.md, "Strings": the answers' schemas forbid empty text, so a string field holds at least
// one character that is neither white space nor invisible. A required one says so in the schema (nonBlankPattern); an
// empty or blank optional one is read as absent, which no JSON Schema keyword can express, so the
// parser removes it with the function built here before it checks the event.

/**
 * The characters that show nothing: white space (ECMAScript's \s, what trim() removes) and the
 * invisible ones (Unicode's default-ignorable code points of the BMP: zero-width space, joiners
 * and word joiner, soft hyphen, bidirectional marks, variation selectors, Hangul fillers; and the
 * tag characters U+E0000 to U+E0FFF, as their surrogates, for schema patterns are read without
 * the u flag). A string of them alone is blank.
 */
export const invisibleCharacters =
  '\\s\\u00AD\\u034F\\u061C\\u115F\\u1160\\u17B4\\u17B5\\u180B-\\u180F\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u206F\\u3164\\uFE00-\\uFE0F\\uFEFF\\uFFA0\\uFFF0-\\uFFF8\\uDB40-\\uDB43\\uDC00-\\uDFFF';

/** At least one character that shows (not in invisibleCharacters). */
export const nonBlankPattern = `[^${invisibleCharacters}]`;
// Read as the schema's pattern is (TypeBox: no u flag), surrogates listed as code units on purpose.
// eslint-disable-next-line no-misleading-character-class
const nonBlank = new RegExp(nonBlankPattern);

const isBlank = (value: string): boolean => !nonBlank.test(value);

/** Deletes, in place, the blank optional strings of a value of one schema. */
export type BlankOptionalsRemover = (value: unknown) => void;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The remover for values of `schema`, or undefined when the schema has no optional property at any
 * depth. Built once per event type from the schema itself, so every optional string the contract
 * gains is covered without a list to keep up to date.
 */
export function blankOptionalsRemover(schema: TSchema): BlankOptionalsRemover | undefined {
  if (schema['type'] === 'array' && schema['items']) {
    const removeInItem = blankOptionalsRemover(schema['items'] as TSchema);
    return (
      removeInItem &&
      ((value) => {
        if (Array.isArray(value)) value.forEach(removeInItem);
      })
    );
  }
  if (schema['type'] !== 'object' || !schema['properties']) return undefined;

  const properties = Object.entries(schema['properties'] as Record<string, TSchema>);
  const required = new Set<string>((schema['required'] as string[] | undefined) ?? []);
  const optional = properties.map(([name]) => name).filter((name) => !required.has(name));
  const nested = properties.flatMap(([name, property]) => {
    const remove = blankOptionalsRemover(property);
    return remove ? [[name, remove] as const] : [];
  });
  if (optional.length === 0 && nested.length === 0) return undefined;

  return (value) => {
    if (!isObject(value)) return;
    for (const name of optional) {
      const field = value[name];
      if (typeof field === 'string' && isBlank(field)) delete value[name];
    }
    for (const [name, remove] of nested) remove(value[name]);
  };
}
