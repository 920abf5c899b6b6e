// What one delivery's answer means (docs/design/osn-2.1.0.md §2: delivered means acknowledged):
// - acknowledged: HTTP 200 with a SendAdvanceShipmentNotificationResponse holding a transactionId,
//   or service messages none of which is an Error;
// - transient, retried until the maximum age: a timeout, a connection error, a 5xx, a 429, a SOAP
//   Server fault; with the receiver's Retry-After when it sent one;
// - refused, retried a few times and then parked: an Error service message, another 4xx, a 3xx (not
//   followed), a 200 that is not that response, a SOAP Client fault, an answer over the size bound.
// An Error message refuses even beside a transactionId: the receiver said it did not take the
// notification, and sending the latest picture again is harmless (§2: it holds the whole truth).
// The response element must be in the 2.1.0 namespace; its children are read by local name in any
// namespace, as receivers vary in how they qualify them.
import type { RawAnswer, SendResult } from '../adapters/receiver/send-notification.js';
import { childNamed, readAnswerXml, type AnswerElement } from './answer-xml.js';
import { retryAfterInstant } from './retry-after.js';

export const OSN_210_NAMESPACE = 'http://www.promostandards.org/WSDL/OrderShipmentNotificationService/2.1.0/';
const RESPONSE = 'SendAdvanceShipmentNotificationResponse';

/** Receivers' own words are quoted up to this many characters (a ServiceMessage description holds at most 256). */
const QUOTED_CHARS = 256;

export interface ServiceMessage {
  code: string;
  description: string;
  severity: string;
}

export type DeliveryOutcome =
  | { kind: 'acknowledged'; transactionId: string | undefined; messages: ServiceMessage[] }
  | { kind: 'transient'; reason: string; status: number | undefined; notBefore: Date | undefined }
  | { kind: 'refused'; reason: string; status: number | undefined; messages: ServiceMessage[] };

const quote = (text: string) => (text.length > QUOTED_CHARS ? `${text.slice(0, QUOTED_CHARS)}…` : text);

/** Judges what the sender brought back. */
export function judgeDelivery(result: SendResult): DeliveryOutcome {
  switch (result.kind) {
    case 'timeout':
    case 'connection':
      return { kind: 'transient', reason: result.message, status: undefined, notBefore: undefined };
    case 'oversized':
      return refused(`HTTP ${result.status}: ${result.message}`, result.status);
    case 'unsendable':
      return refused(result.message, undefined);
    case 'answer':
      return judgeAnswer(result);
  }
}

function judgeAnswer(answer: RawAnswer): DeliveryOutcome {
  const { status } = answer;
  if (status === 429 || (status >= 500 && status !== 500)) return transient(answer, `HTTP ${status}`);
  if (status >= 300 && status < 400) {
    const location = answer.headers['location'];
    return refused(`HTTP ${status}, a redirect${location ? ` to ${quote(location)}` : ''}: not followed (register the receiver's own URL)`, status);
  }
  if (status !== 200 && status !== 500) return refused(`HTTP ${status}`, status);
  const body = soapBody(answer.body);
  const fault = body && childNamed(body, 'Fault');
  if (fault) return judgeFault(answer, fault);
  if (status === 500) return transient(answer, 'HTTP 500');
  const response = body?.children.find((child) => child.name === RESPONSE);
  if (!response) return refused(`HTTP 200 whose body is not a SOAP ${RESPONSE}`, status);
  if (response.namespace !== OSN_210_NAMESPACE) return refused(`HTTP 200 with a ${RESPONSE} in namespace ${quote(response.namespace) || '(none)'}, not ${OSN_210_NAMESPACE}`, status);
  const transactionId = childNamed(response, 'transactionId')?.text || undefined;
  const messages = serviceMessages(response);
  const error = messages.find((message) => message.severity.toLowerCase() === 'error');
  if (error) return { kind: 'refused', reason: `service message Error ${quote(error.code)}: ${quote(error.description)}`, status, messages };
  if (transactionId === undefined && messages.length === 0) return refused(`HTTP 200 with a ${RESPONSE} holding neither a transactionId nor a service message`, status);
  return { kind: 'acknowledged', transactionId: transactionId && quote(transactionId), messages };
}

/** The Body of a SOAP envelope (1.1 or 1.2: matched by local name), or undefined. */
function soapBody(text: string): AnswerElement | undefined {
  const envelope = readAnswerXml(text);
  return envelope?.name === 'Envelope' ? childNamed(envelope, 'Body') : undefined;
}

function serviceMessages(response: AnswerElement): ServiceMessage[] {
  const array = childNamed(response, 'ServiceMessageArray');
  return (array?.children ?? [])
    .filter((child) => child.name === 'ServiceMessage')
    .map((message) => ({
      code: quote(childNamed(message, 'code')?.text ?? ''),
      description: quote(childNamed(message, 'description')?.text ?? ''),
      severity: quote(childNamed(message, 'severity')?.text ?? ''),
    }));
}

/**
 * A SOAP 1.1 faultcode (`soap:Client`, `soap:Client.Authentication`) or 1.2 Code/Value
 * (`soap:Sender`): the receiver's own trouble is transient; ours, or a code we cannot place, is
 * refused (retried a few times, then parked for someone to look at).
 */
function judgeFault(answer: RawAnswer, fault: AnswerElement): DeliveryOutcome {
  const code = childNamed(fault, 'faultcode')?.text ?? childNamed(childNamed(fault, 'Code') ?? fault, 'Value')?.text ?? '';
  const text = childNamed(fault, 'faultstring')?.text ?? childNamed(childNamed(fault, 'Reason') ?? fault, 'Text')?.text ?? '';
  const kind = code.slice(code.indexOf(':') + 1).split('.')[0];
  const reason = `SOAP fault ${quote(code) || '(no code)'}${text ? `: ${quote(text)}` : ''}`;
  if (kind === 'Server' || kind === 'Receiver') return transient(answer, reason);
  return refused(reason, answer.status);
}

function transient(answer: RawAnswer, reason: string): DeliveryOutcome {
  return { kind: 'transient', reason, status: answer.status, notBefore: retryAfterInstant(answer.headers['retry-after'], answer.receivedAt, answer.headers['date']) };
}

function refused(reason: string, status: number | undefined): DeliveryOutcome {
  return { kind: 'refused', reason, status, messages: [] };
}
