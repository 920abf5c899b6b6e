import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { TSchema } from '@sinclair/typebox';
import { blankOptionalsRemover, type BlankOptionalsRemover } from './blank-strings.js';
import { describeErrors, problem } from './error-messages.js';
import {
  AnyEnvelopeSchema,
  erpEventTypes,
  eventSchemas,
  schemaVersion,
  type ErpEvent,
  type ErpEventType,
} from './erp-event-schema.js';

export type ParseFailureKind = 'not-json' | 'unknown-type' | 'unknown-schema-version' | 'schema';

export type ParseResult =
  | { ok: true; event: ErpEvent }
  | { ok: false; kind: ParseFailureKind; errors: string[] };

// Compiled once at import: validation is on the projector's hot path. Errors are only computed
// (interpreted, slower) for the rare event that fails the compiled check.
const checks = Object.fromEntries(
  Object.entries(eventSchemas).map(([type, schema]) => [type, TypeCompiler.Compile(schema as TSchema)]),
) as Record<ErpEventType, TypeCheck<TSchema>>;
const envelopeCheck = TypeCompiler.Compile(AnyEnvelopeSchema);
const removeBlankOptionals = Object.fromEntries(
  Object.entries(eventSchemas).map(([type, schema]) => [type, blankOptionalsRemover(schema as TSchema)]),
) as Record<ErpEventType, BlankOptionalsRemover | undefined>;
const knownTypes = new Set<string>(erpEventTypes);

// fatal: a message that is not UTF-8 is refused rather than read with replacement characters.
const utf8 = new TextDecoder('utf-8', { fatal: true });

const fail = (kind: ParseFailureKind, errors: string[]): ParseResult => ({ ok: false, kind, errors });

function decode(raw: Buffer | string): string | undefined {
  if (typeof raw === 'string') return raw;
  try {
    return utf8.decode(raw);
  } catch {
    return undefined;
  }
}

/**
 * Reads one message value as an event of contract v1, its empty or blank optional strings left out
 * as absent. On failure it says which kind of failure and lists every problem with its JSON
 * pointer, e.g. `/data/shipTo/region: must be at most 2 characters`.
 */
export function parseErpEvent(raw: Buffer | string): ParseResult {
  const text = decode(raw);
  if (text === undefined) return fail('not-json', ['not JSON: the message is not valid UTF-8']);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return fail('not-json', [`not JSON: ${(error as Error).message}`]);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return fail('schema', [problem('', 'must be an object (an event envelope)')]);
  }

  const { type, schemaVersion: version } = value as { type?: unknown; schemaVersion?: unknown };
  // A later version's shape is unknown here, so nothing else about such an event can be judged.
  if (Number.isInteger(version) && version !== schemaVersion) {
    return fail('unknown-schema-version', [problem('/schemaVersion', `unknown schema version ${String(version)}, this reader knows ${schemaVersion}`)]);
  }
  if (typeof type !== 'string') return fail('schema', describeErrors(envelopeCheck.Errors(value)));
  if (!knownTypes.has(type)) {
    const envelopeErrors = envelopeCheck.Check(value) ? [] : describeErrors(envelopeCheck.Errors(value));
    return fail('unknown-type', [
      problem('/type', `unknown event type ${JSON.stringify(type)}, known: ${erpEventTypes.join(', ')}`),
      ...envelopeErrors,
    ]);
  }

  // Before the check: a blank optional string is absent, even one longer than its field allows.
  removeBlankOptionals[type as ErpEventType]?.(value);
  const check = checks[type as ErpEventType];
  if (check.Check(value)) return { ok: true, event: value as ErpEvent };
  return fail('schema', describeErrors(check.Errors(value)));
}
