// SOAP 1.1 envelopes for answers and faults, written as XML text around the Body's content.
import { SOAP_ENVELOPE_NS } from './namespaces.js';
import { AnswerChunks, answerChunks } from '../../http/answer-chunks.js';
import { textElement } from './xml-text.js';

const OPEN = `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${SOAP_ENVELOPE_NS}"><soap:Body>`;
const CLOSE = '</soap:Body></soap:Envelope>';

/** Writes the Body's content. */
export type Payload = (out: AnswerChunks) => void;

/** The answer's bytes (UTF-8): the envelope around what `payload` writes. */
export function renderEnvelope(payload: Payload): Buffer {
  const out = new AnswerChunks();
  out.add(OPEN);
  payload(out);
  out.add(CLOSE);
  return out.bytes();
}

/** Writes the Body's content part by part as the parts come, yielding after each (see answerChunks). */
export type StreamedPayload = (out: AnswerChunks) => AsyncIterable<unknown>;

/** An operation's answer: its Body's content written at once, or as its parts are read. */
export type BodyContent = Payload | { streamed: StreamedPayload };

/** The answer's bytes (UTF-8), a chunk at a time as `payload` writes them: the envelope around it. */
export function streamedEnvelope(payload: StreamedPayload): AsyncGenerator<Buffer> {
  return answerChunks(async function* (out) {
    out.add(OPEN);
    yield* payload(out);
    out.add(CLOSE);
  });
}

export type FaultCode = 'soap:Client' | 'soap:Server';

/** faultcode and faultstring are unqualified in SOAP 1.1. */
export function renderFault(code: FaultCode, message: string): string {
  return `${OPEN}<soap:Fault>${textElement('faultcode', code)}${textElement('faultstring', message)}</soap:Fault>${CLOSE}`;
}
