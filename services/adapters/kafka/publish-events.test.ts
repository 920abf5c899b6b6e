// How ossn publish hands events to the producer: every valid line once, in order, in chunks no
// broker refuses (each partition's share of a chunk is one record batch, refused above
// message.max.bytes even when every event falls in one partition).
import { describe, expect, it } from 'vitest';
import type { OutgoingMessage } from './messages.js';
import type { MessageProducer } from './producer.js';
import { publishChunk, publishNdjson } from './publish-events.js';

/** A producer that keeps what it is handed, chunk by chunk. */
function keeper(): MessageProducer & { chunks: OutgoingMessage[][] } {
  const chunks: OutgoingMessage[][] = [];
  return { chunks, send: async (_topic, messages) => void chunks.push(messages), close: async () => undefined };
}

/** A valid status event (about 300 bytes) of one of seven sales orders. */
function line(n: number): string {
  const event = {
    eventId: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    type: 'SalesOrderStatusChanged',
    schemaVersion: 1,
    clientId: 'C1',
    salesOrderNumber: `SO-${n % 7}`,
    sequence: n + 1,
    occurredAt: '2026-12-01T10:00:00Z',
    data: { purchaseOrderNumber: 'PO-1', statusId: 10 },
  };
  return JSON.stringify(event);
}

const bytesOf = (chunk: OutgoingMessage[]) => chunk.reduce((sum, m) => sum + Buffer.byteLength(String(m.key)) + Buffer.byteLength(String(m.value)), 0);

describe('publishNdjson chunks', () => {
  it('sends every valid line once and in order, at most publishChunk.events a chunk', async () => {
    const producer = keeper();
    const lines = Array.from({ length: 6_001 }, (_, n) => line(n));
    const report = await publishNdjson(lines, producer, 't');
    expect(report).toEqual({ sent: 6_001, refused: [] });
    expect(producer.chunks.map((c) => c.length)).toEqual([2_500, 2_500, 1_001]);
    expect(producer.chunks.flat().map((m) => m.value)).toEqual(lines);
    expect(producer.chunks[0]![0]!.key).toBe('C1:SO-0');
  });

  it('keeps a chunk within publishChunk.bytes, however few events that takes', async () => {
    const producer = keeper();
    // Events of about 2.3 KB (v2 statuses with the longest explanation and proof URL): 2,500 of them, 5.6 MB in one chunk.
    const big = (n: number) => {
      const event = JSON.parse(line(n)) as { data: Record<string, unknown> };
      return JSON.stringify({ ...event, schemaVersion: 2, data: { ...event.data, additionalExplanation: 'y'.repeat(1_024), qualityProofURL: `https://proofs.example/${'z'.repeat(1_000)}` } });
    };
    const lines = Array.from({ length: 1_000 }, (_, n) => big(n));
    expect(await publishNdjson(lines, producer, 't')).toEqual({ sent: 1_000, refused: [] });
    expect(producer.chunks.flat().map((m) => m.value)).toEqual(lines);
    for (const chunk of producer.chunks) expect(bytesOf(chunk)).toBeLessThanOrEqual(publishChunk.bytes);
    expect(producer.chunks.length).toBeGreaterThan(1);
  });
});
