// What a SOAP body costs the event loop before anyone is authenticated, printed (never asserted):
// per request, against body size and element count, on the path before the guard (the body read
// as text and parsed whole, up to the former 64 KiB limit) and on today's (8 KiB limit, markup
// counted in one pass before parsing), side by side in one run. No server, no store: the decode and
// parse steps the SOAP routes run, timed in this process.
//
// Run: npx tsx bench/soap-parser.ts      Settings: BENCH_PARSER_ROUNDS (default 7), BENCH_PARSER_MS
// (time per case and side in each round, default 200).
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { DEFAULT_BODY_LIMIT } from '../services/query/protocol/soap/soap-http.js';
import { decodeRequestBody, MAX_ATTRIBUTES, MAX_MARKUP, operationElement, refuseDisproportionate } from '../services/query/protocol/soap/parse-envelope.js';
import { statusTypesRequest } from '../test/support/soap-requests.js';
import { median } from './support/stats.js';

const FORMER_BODY_LIMIT = 64 * 1024;
const rounds = Number(process.env.BENCH_PARSER_ROUNDS ?? 7);
const msPerSide = Number(process.env.BENCH_PARSER_MS ?? 200);
const contentType = 'text/xml; charset=utf-8';

/**
 * A valid request whose Header holds `elements` empty elements (and `attributes` empty attributes
 * on its start tag), padded with a comment to `bytes` when it is shorter.
 */
function body(bytes: number, elements: number, attributes = 0): Buffer {
  const header = '<a/>'.repeat(elements);
  const names = Array.from({ length: attributes }, (_, n) => ` a${n.toString(36)}=""`).join('');
  const base = statusTypesRequest().replace('<soapenv:Header/>', `<soapenv:Header${names}>${header}</soapenv:Header>`);
  const room = bytes - Buffer.byteLength(base) - '<!---->'.length;
  return Buffer.from(room > 0 ? base.replace('<soapenv:Header>', `<soapenv:Header><!--${'x'.repeat(room)}-->`) : base);
}

type Outcome = 'parsed' | 'refused: body limit' | 'refused: markup' | 'refused: parser';

/** The route's work on a body before the guard. */
function before(raw: Buffer): Outcome {
  if (raw.length > FORMER_BODY_LIMIT) return 'refused: body limit';
  try {
    operationElement(decodeRequestBody(raw, contentType));
    return 'parsed';
  } catch {
    return 'refused: parser';
  }
}

/** Today's: the limit, the markup count, then the parse. */
function after(raw: Buffer): Outcome {
  if (raw.length > DEFAULT_BODY_LIMIT) return 'refused: body limit';
  const text = decodeRequestBody(raw, contentType);
  try {
    refuseDisproportionate(text);
  } catch {
    return 'refused: markup';
  }
  try {
    operationElement(text);
    return 'parsed';
  } catch {
    return 'refused: parser';
  }
}

/** Microseconds per request: as many runs as fit in msPerSide. */
function perRequest(work: (raw: Buffer) => Outcome, raw: Buffer): { us: number; outcome: Outcome } {
  let outcome: Outcome = work(raw);
  let runs = 0;
  const start = performance.now();
  while (performance.now() - start < msPerSide) {
    outcome = work(raw);
    runs++;
  }
  return { us: ((performance.now() - start) * 1000) / runs, outcome };
}

const cases: Array<[label: string, bytes: number, elements: number, attributes?: number]> = [
  ['a partner request', 0, 0],
  ['2 KiB, 40 elements', 2 * 1024, 40],
  ['7 KiB, 1,500 elements', 0, 1_500],
  ['8 KiB of comment, 0 elements', 8 * 1024 - 64, 0],
  ['7 KiB, 1 element of 1,000 attributes', 0, 0, 1_000],
  ['64 KiB, 1 element of 8,000 attributes', 0, 0, 8_000],
  ['16 KiB, 4,000 elements', 0, 4_000],
  ['64 KiB, 16,000 elements', 0, 16_000],
  ['64 KiB of comment, 0 elements', 63 * 1024, 0],
];

console.log(`SOAP parser cost per request (median of ${rounds} rounds of ${msPerSide} ms per case and side); ${cpus()[0]?.model ?? 'cpu'}, load ${loadavg()[0]?.toFixed(2)}`);
console.log(`before: body limit ${FORMER_BODY_LIMIT / 1024} KiB, parsed whole | after: body limit ${DEFAULT_BODY_LIMIT / 1024} KiB, at most ${MAX_MARKUP} markup starts and ${MAX_ATTRIBUTES} attributes counted before parsing\n`);
const rows: string[][] = [['case', 'bytes', 'elements', 'before µs/req', 'before', 'after µs/req', 'after', 'requests/s of one core before → after']];
for (const [label, bytes, elements, attributes] of cases) {
  const raw = body(bytes, elements, attributes);
  const samples = { before: [] as number[], after: [] as number[] };
  let outcomes = { before: 'parsed' as Outcome, after: 'parsed' as Outcome };
  for (let round = 0; round < rounds; round++) {
    // The order alternates, so that neither side always runs on a warmer process.
    const sides = round % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
    for (const side of sides) {
      const { us, outcome } = perRequest(side === 'before' ? before : after, raw);
      samples[side].push(us);
      outcomes = { ...outcomes, [side]: outcome };
    }
  }
  const [b, a] = [median(samples.before), median(samples.after)];
  const perSecond = (us: number) => Math.round(1_000_000 / us).toLocaleString('en-US');
  rows.push([label, raw.length.toLocaleString('en-US'), elements.toLocaleString('en-US'), b.toFixed(1), outcomes.before, a.toFixed(1), outcomes.after, `${perSecond(b)} → ${perSecond(a)}`]);
}
const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
for (const row of rows) console.log(row.map((cell, column) => cell.padEnd(widths[column]!)).join('  '));
