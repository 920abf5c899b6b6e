import type { TSchema } from '@sinclair/typebox';

// erp-events.md, "Strings": the answers' schemas forbid empty text, so a string field holds at least
// one character that is not white space. A required one says so in the schema (nonBlankPattern); an
// empty or blank optional one is read as absent, which no JSON Schema keyword can express, so the
// parser removes it with the function built here before it checks the event.

/** At least one character that is not white space (ECMAScript's \s, what trim() removes). */
export const nonBlankPattern = '\\S';
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
