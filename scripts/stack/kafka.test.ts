import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { kafkaClusterId, newKafkaClusterId, storageFormatArgs } from './kafka.js';

/** The 16 bytes behind a cluster id. */
const bytesOf = (id: string) => Buffer.from(id, 'base64url');

describe("the Kafka cluster id a stack's nodes are formatted with", () => {
  it("is a random version 4 UUID in base64url, as Kafka makes them, and never starts with '-' (which Kafka's tools read as an option)", () => {
    // About 1 random id in 64 starts with '-': 20,000 draws would show some 300 of them.
    const ids = Array.from({ length: 20_000 }, () => newKafkaClusterId());
    expect(ids.filter((id) => id.startsWith('-'))).toEqual([]);
    expect(ids.filter((id) => !/^[A-Za-z0-9_-]{22}$/.test(id))).toEqual([]);
    expect(ids.filter((id) => bytesOf(id)[6]! >> 4 !== 4 || bytesOf(id)[8]! >> 6 !== 0b10)).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    // Every other first character does occur: the redraw removes only '-'.
    expect(new Set(ids.map((id) => id[0])).size).toBe(63);
  });

  it("draws again when a UUID's base64url starts with '-'", () => {
    const draws = ['f8000000-0000-4000-8000-000000000000', '3b9aca00-0000-4000-8000-000000000001'];
    const id = newKafkaClusterId(() => draws.shift() as string);
    expect(id).toBe(Buffer.from('3b9aca00000040008000000000000001', 'hex').toString('base64url'));
    expect(draws).toEqual([]);
  });

  describe('its file', () => {
    let dir = '';
    afterEach(() => rmSync(dir, { recursive: true, force: true }));
    const fileIn = () => join((dir = mkdtempSync(join(tmpdir(), 'ossn-kafka-id-'))), 'cluster-id');

    it('is made by the first node that needs it and read by the others', () => {
      const file = fileIn();
      const id = kafkaClusterId(file);
      expect(id).not.toMatch(/^-/);
      expect(kafkaClusterId(file)).toBe(id);
      expect(readFileSync(file, 'utf8')).toBe(`${id}\n`);
    });

    it("is made afresh when it holds an id starting with '-', left by an earlier version whose format refused it", () => {
      const file = fileIn();
      writeFileSync(file, '-aahkZ1tQk2cE5y7HXbW3A\n');
      const id = kafkaClusterId(file);
      expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
      expect(readFileSync(file, 'utf8')).toBe(`${id}\n`);
      writeFileSync(file, 'OPp5yj__YVZ7vzyXWeHnwA\n');
      expect(kafkaClusterId(file)).toBe('OPp5yj__YVZ7vzyXWeHnwA');
    });
  });

  it("is given to Kafka's StorageTool as --cluster-id=<id>, one argument, so even an id starting with '-' is not read as an option", () => {
    const args = storageFormatArgs({ log4jFile: '/k/log4j2.properties', classpath: '/cache/kafka/lib/*', propertiesFile: '/k/server.properties' }, '-aahkZ1tQk2cE5y7HXbW3A');
    expect(args).toEqual([
      '-Xmx256m',
      '-Dlog4j2.configurationFile=/k/log4j2.properties',
      '-cp',
      '/cache/kafka/lib/*',
      'kafka.tools.StorageTool',
      'format',
      '--cluster-id=-aahkZ1tQk2cE5y7HXbW3A',
      '-c',
      '/k/server.properties',
      '--ignore-formatted',
    ]);
  });
});
