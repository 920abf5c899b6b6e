// The SOAP envelope written at once and as its parts come: a partner gets the same bytes either way,
// whatever the parts and wherever the 64 KiB chunks fall (multi-byte characters included).
import { describe, expect, it } from 'vitest';
import { renderEnvelope, streamedEnvelope } from './envelope.js';

const parts = Array.from({ length: 40 }, (_, i) => `<Part n="${i}">${'Zürich 📦 '.repeat(500 + i)}</Part>`);

async function bytesOf(chunks: AsyncIterable<Buffer>): Promise<{ bytes: Buffer; chunks: number }> {
  const all: Buffer[] = [];
  for await (const chunk of chunks) all.push(chunk);
  return { bytes: Buffer.concat(all), chunks: all.length };
}

describe('the SOAP envelope', () => {
  it('gives the same bytes written as its parts come as written at once, in more than one chunk', async () => {
    const whole = renderEnvelope((out) => parts.forEach((part) => out.add(part)));
    const streamed = await bytesOf(
      streamedEnvelope(async function* (out) {
        for (const part of parts) {
          out.add(part);
          yield;
        }
      }),
    );
    expect(streamed.chunks).toBeGreaterThan(1);
    expect(streamed.bytes.equals(whole)).toBe(true);
    expect(whole.toString('utf8')).toMatch(/^<\?xml version="1.0" encoding="utf-8"\?><soap:Envelope xmlns:soap="http:\/\/schemas.xmlsoap.org\/soap\/envelope\/"><soap:Body><Part n="0">Zürich 📦 /);
    expect(whole.toString('utf8').endsWith('</Part></soap:Body></soap:Envelope>')).toBe(true);
  });
});
