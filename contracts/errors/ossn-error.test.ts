import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ErrorCodes, hasCode, OssnError } from './ossn-error.js';

describe('error codes', () => {
  it('are distinct, and each starts with OSSN_', () => {
    const codes = Object.values(ErrorCodes);
    expect(new Set(codes).size).toBe(codes.length);
    for (const code of codes) expect(code).toMatch(/^OSSN_[A-Z_]+$/);
  });

  it("are each in the operators' table (docs/operations.md)", () => {
    const operations = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    expect(Object.values(ErrorCodes).filter((code) => !operations.includes(`| \`${code}\` |`))).toEqual([]);
  });
});

describe('OssnError', () => {
  it('carries its code and the standard cause', () => {
    const cause = new Error('E11000 duplicate key');
    const error = new OssnError(ErrorCodes.CREDENTIAL_EXISTS, 'credential x already exists', { cause });
    expect(error).toMatchObject({ code: 'OSSN_CREDENTIAL_EXISTS', message: 'credential x already exists', cause });
    expect(hasCode(error, ErrorCodes.CREDENTIAL_EXISTS)).toBe(true);
    expect(hasCode(error, ErrorCodes.USAGE)).toBe(false);
    expect(hasCode({ code: 'OSSN_CREDENTIAL_EXISTS' }, ErrorCodes.CREDENTIAL_EXISTS)).toBe(false); // ours only
  });

  it('is logged by pino with its code and the message of its cause', () => {
    const lines: string[] = [];
    const out = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const cause = new Error('connection reset');
    pino(out).error({ err: new OssnError(ErrorCodes.STORE_TIMEOUT, 'a store operation took longer than 5 ms', { cause }) }, 'failed');
    const { err } = JSON.parse(lines[0]!) as { err: { type: string; code: string; message: string } };
    expect(err.code).toBe('OSSN_STORE_TIMEOUT');
    expect(err.message).toBe('a store operation took longer than 5 ms: connection reset');
  });
});
