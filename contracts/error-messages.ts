import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { nonBlankPattern } from './blank-strings.js';
import { clientIdPattern, utcPattern } from './erp-event-schema.js';
import { answerableYears, isRfc3339DateTime } from './formats.js';

// One line per problem, "<JSON pointer>: <what is wrong>", written for the people who read the
// dead-letter topic's x-error header. TypeBox's own texts are kept for anything not listed.

const shown = (value: unknown): string => {
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 40 ? `${json.slice(0, 37)}...` : json;
};

const characters = (n: number): string => `${n} character${n === 1 ? '' : 's'}`;

const blankMessage = 'must not be empty or blank';

const formatMessages: Record<string, string> = {
  'date-time': 'must be an RFC 3339 date-time with offset, e.g. 2024-05-01T14:30:00Z',
  uuid: 'must be a UUID',
};

function messageOf(error: ValueError): string {
  const { schema } = error;
  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return 'is required';
    case ValueErrorType.ObjectAdditionalProperties:
      return 'is not an allowed property';
    case ValueErrorType.Object:
      return 'must be an object';
    case ValueErrorType.Array:
      return 'must be an array';
    case ValueErrorType.String:
      return 'must be a string';
    case ValueErrorType.StringMaxLength:
      return `must be at most ${characters(schema.maxLength as number)}`;
    case ValueErrorType.StringMinLength:
      return `must be at least ${characters(schema.minLength as number)}`;
    case ValueErrorType.StringFormat:
      // A well-formed date-time fails the format only by its year.
      if (schema.format === 'date-time' && isRfc3339DateTime(String(error.value))) return `must lie in the years ${answerableYears}`;
      return formatMessages[schema.format as string] ?? `must be a ${schema.format as string}`;
    case ValueErrorType.StringPattern:
      if (schema.pattern === utcPattern) return 'must be in UTC (offset Z or +00:00)';
      if (schema.pattern === nonBlankPattern) return blankMessage;
      if (schema.pattern === clientIdPattern) return String(error.value).includes(':') ? "must not contain ':'" : blankMessage;
      return `must match ${schema.pattern as string}`;
    case ValueErrorType.Integer:
      return 'must be an integer';
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.NumberMinimum:
      return `must be at least ${schema.minimum as number}`;
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMaximum:
      return `must be at most ${schema.maximum as number}`;
    case ValueErrorType.Number:
      return 'must be a number';
    case ValueErrorType.Boolean:
      return 'must be true or false';
    case ValueErrorType.Literal:
      return `must be ${shown(schema.const)}, got ${shown(error.value)}`;
    case ValueErrorType.Union: {
      const options = (schema.anyOf as { const?: unknown }[]).map((s) => s.const);
      return options.every((o) => o !== undefined)
        ? `must be one of ${options.map((o) => (typeof o === 'string' ? o : String(o))).join(', ')}, got ${shown(error.value)}`
        : error.message;
    }
    default:
      return error.message;
  }
}

/** The root is shown as "/" rather than the empty JSON pointer, which reads as nothing. */
export const problem = (path: string, message: string): string => `${path === '' ? '/' : path}: ${message}`;

/**
 * Every problem TypeBox finds, each once. A missing required property is reported as missing
 * only, not also as "must be a string" etc. for the undefined that TypeBox then visits.
 */
export function describeErrors(errors: Iterable<ValueError>): string[] {
  const missing = new Set<string>();
  const lines: string[] = [];
  for (const error of errors) {
    if (missing.has(error.path)) continue;
    if (error.type === ValueErrorType.ObjectRequiredProperty) missing.add(error.path);
    lines.push(problem(error.path, messageOf(error)));
  }
  return lines;
}
