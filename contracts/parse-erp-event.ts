import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { TSchema } from '@sinclair/typebox';
import { blankOptionalsRemover, type BlankOptionalsRemover } from './blank-strings.js';
import { describeErrors, problem } from './error-messages.js';
import {
  AnyEnvelopeSchema,
  erpEventTypes,
  erpEventTypesV1,
  eventSchemasByVersion,
  eventSchemasV1,
  schemaVersion,
  schemaVersions,
  schemaVersionV2,
  type ErpEvent,
  type ErpEventType,
  type SchemaVersion,
} from './erp-event-schema.js';

export type ParseFailureKind = 'not-json' | 'unknown-type' | 'unknown-schema-version' | 'schema';

export type ParseResult =
  | { ok: true; event: ErpEvent }
  | { ok: false; kind: ParseFailureKind; errors: string[] };

// Compiled once at import: validation is on the projector's hot path. Errors are only computed
// (interpreted, slower) for the rare event that fails the compiled check.
const compile = (schemas: Partial<Record<ErpEventType, TSchema>>) =>
  new Map(Object.entries(schemas).map(([type, schema]) => [type, TypeCompiler.Compile(schema)] as const));
const checks = new Map<SchemaVersion, Map<string, TypeCheck<TSchema>>>(
  schemaVersions.map((version) => [version, compile(eventSchemasByVersion[version])]),
);
const envelopeCheck = TypeCompiler.Compile(AnyEnvelopeSchema);
// Built from contract v1's schemas under either version: v1's fields keep its rule (a blank optional
// string is absent), while every string v2 adds must not be blank, so v2's fields are left to the check.
const removeBlankOptionals = new Map<string, BlankOptionalsRemover | undefined>(
  Object.entries(eventSchemasV1).map(([type, schema]) => [type, blankOptionalsRemover(schema as TSchema)]),
);
const knownTypes = new Map<SchemaVersion, readonly string[]>([
  [schemaVersion, erpEventTypesV1],
  [schemaVersionV2, erpEventTypes],
]);

const isKnownVersion = (version: unknown): version is SchemaVersion => schemaVersions.includes(version as SchemaVersion);

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
 * Reads one message value as an event of contract v1 (schemaVersion 1) or v2 (schemaVersion 2), the
 * empty or blank optional strings of v1's fields left out as absent. On failure it says which kind
 * of failure and lists every problem with its JSON pointer, e.g. `/data/shipTo/region: must be at
 * most 2 characters`.
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
  if (Number.isInteger(version) && !isKnownVersion(version)) {
    return fail('unknown-schema-version', [
      problem('/schemaVersion', `unknown schema version ${String(version)}, this reader knows ${schemaVersions.join(', ')}`),
    ]);
  }
  if (typeof type !== 'string') return fail('schema', describeErrors(envelopeCheck.Errors(value)));
  // Without a version to go by (missing, not an integer), a type is judged by the first contract
  // that has it, whose check then names the schemaVersion it wants.
  const judgedBy = isKnownVersion(version) ? version : erpEventTypesV1.includes(type as never) ? schemaVersion : schemaVersionV2;
  const known = knownTypes.get(judgedBy) ?? [];
  if (!known.includes(type)) {
    const envelopeErrors = envelopeCheck.Check(value) ? [] : describeErrors(envelopeCheck.Errors(value));
    const typeProblem = erpEventTypes.includes(type as ErpEventType)
      ? `event type ${JSON.stringify(type)} needs schemaVersion ${schemaVersionV2}`
      : `unknown event type ${JSON.stringify(type)}, known: ${known.join(', ')}`;
    return fail('unknown-type', [problem('/type', typeProblem), ...envelopeErrors]);
  }

  // Before the check: a blank optional string is absent, even one longer than its field allows.
  removeBlankOptionals.get(type)?.(value);
  const check = checks.get(judgedBy)?.get(type) as TypeCheck<TSchema>;
  if (check.Check(value)) return { ok: true, event: value as ErpEvent };
  const errors = describeErrors(check.Errors(value));
  // A v1 event that would be good under v2 holds v2's fields: say what it lacks.
  if (version === schemaVersion && checks.get(schemaVersionV2)?.get(type)?.Check({ ...(value as Record<string, unknown>), schemaVersion: schemaVersionV2 })) {
    errors.push(problem('/schemaVersion', `the fields of contract v2 need schemaVersion ${schemaVersionV2}`));
  }
  return fail('schema', errors);
}
