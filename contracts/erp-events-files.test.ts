// The contract's files as an ERP developer gets them (docs/erp-events.md): the JSON Schema is what the
// TypeBox source gives, a standard validator reads it as the projector's parser does, and the AsyncAPI
// document is valid AsyncAPI 3.0.0 whose topics, key, headers and message schema are the code's.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { DeadLetterHeaders, REDRIVEN_FROM_HEADER } from '../services/domain/dead-letters/headers.js';
import type { DeadLetterKind } from '../services/domain/dead-letters/dead-letter-records.js';
import { readPublishConfig } from '../services/config/config.js';
import { statusChanged, packageShipped, locationRecorded, issueRecorded, asV2 } from '../test/fixtures/sample-events.js';
import { deadLetterTopic, defaultTopic, eventKey, parseErpEvent } from './erp-events.js';
import { erpEventsSchemaPath, erpEventsSchemaText } from './schema-file.js';

const root = new URL('../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

/** Every kind a dead letter's x-error-kind can hold: the type makes this list complete. */
const kinds: Record<DeadLetterKind, true> = { 'not-json': true, schema: true, 'unknown-type': true, 'unknown-schema-version': true, 'wrong-key': true, rejected: true };

function committedSchemaValidator() {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajvFormats.default(ajv);
  return ajv.compile(JSON.parse(read(erpEventsSchemaPath)) as object);
}

describe(`${erpEventsSchemaPath}`, () => {
  it('is what the TypeBox source gives (npm run contracts:schema writes it)', () => {
    expect(read(erpEventsSchemaPath), 'the committed schema differs from contracts/erp-event-schema.ts: run `npm run contracts:schema` and commit it').toBe(
      erpEventsSchemaText(),
    );
  });

  it('accepts and refuses with a standard validator what the projector accepts and refuses', { timeout: 60_000 }, () => {
    const validate = committedSchemaValidator();
    const good = [statusChanged(1), locationRecorded(2, 1), packageShipped(3, 1, 1), issueRecorded(4), asV2(statusChanged(5, { statusId: 20, statusV2: 'shipped' }))];
    const bad = [
      statusChanged(1, { statusId: 12 as 20 }),
      { ...statusChanged(1), schemaVersion: 3 },
      issueRecorded(4, {}), // v2's type under schemaVersion 1
      packageShipped(3, 1, 1, { shipmentDate: '2025-05-02T10:30:00-05:00' }), // not UTC
      { ...locationRecorded(2, 1), clientId: 'C:1' },
    ].map((event, i) => (i === 2 ? { ...event, schemaVersion: 1 } : event));
    for (const event of good) {
      expect(parseErpEvent(JSON.stringify(event)).ok, event.type).toBe(true);
      expect(validate(event), JSON.stringify(validate.errors)).toBe(true);
    }
    for (const event of bad) {
      expect(parseErpEvent(JSON.stringify(event)).ok, JSON.stringify(event)).toBe(false);
      expect(validate(event), JSON.stringify(event)).toBe(false);
    }
  });
});

describe('contracts/erp-events.asyncapi.yaml', () => {
  const doc = parseYaml(read('contracts/erp-events.asyncapi.yaml')) as any; // eslint-disable-line @typescript-eslint/no-explicit-any

  it('is valid against the official AsyncAPI 3.0.0 schema', { timeout: 60_000 }, () => {
    const specs = createRequire(import.meta.url)('@asyncapi/specs') as { schemasWithoutId: Record<string, object> };
    const ajv = new Ajv({ strict: false, allErrors: true });
    ajvFormats.default(ajv);
    const validate = ajv.compile(specs.schemasWithoutId['3.0.0']!);
    expect(doc.asyncapi).toBe('3.0.0');
    expect(validate(doc), JSON.stringify(validate.errors?.slice(0, 5), null, 1)).toBe(true);
  });

  it("names the code's topic, dead-letter topic and partitions", () => {
    const { erpEvents, deadLetters } = doc.channels;
    expect([erpEvents.address, erpEvents.bindings.kafka.topic]).toEqual([defaultTopic, defaultTopic]);
    expect([deadLetters.address, deadLetters.bindings.kafka.topic]).toEqual([deadLetterTopic(defaultTopic), deadLetterTopic(defaultTopic)]);
    const { topicPartitions } = readPublishConfig({ KAFKA_BROKERS: 'localhost:9092' });
    expect([erpEvents.bindings.kafka.partitions, deadLetters.bindings.kafka.partitions]).toEqual([topicPartitions, topicPartitions]);
  });

  it("gives the events the committed JSON Schema and the code's key", () => {
    const message = doc.components.messages.erpEvent;
    expect(message.payload.schema).toEqual({ $ref: `./${erpEventsSchemaPath.replace(/^contracts\//, '')}` });
    const key = new RegExp(message.bindings.kafka.key.pattern as string);
    expect(key.test(eventKey('C1', 'SO-9'))).toBe(true);
    expect(key.test('SO-9')).toBe(false);
    for (const example of message.examples as { payload: unknown }[]) expect(parseErpEvent(JSON.stringify(example.payload)).ok).toBe(true);
    expect(Object.keys(message.headers.properties as object)).toEqual([REDRIVEN_FROM_HEADER]);
  });

  it("gives dead letters the headers and kinds the projector writes", () => {
    const headers = doc.components.messages.deadLetter.headers;
    expect(Object.keys(headers.properties as object).sort()).toEqual(Object.values(DeadLetterHeaders).sort());
    expect([...(headers.required as string[])].sort()).toEqual(Object.values(DeadLetterHeaders).filter((h) => h !== DeadLetterHeaders.truncated).sort());
    expect([...(headers.properties[DeadLetterHeaders.kind].enum as string[])].sort()).toEqual(Object.keys(kinds).sort());
  });
});
