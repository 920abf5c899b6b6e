// The one table of 2.x service messages (oss-osn-2.0.0.md §3, docs/design/osn-2.1.0.md §1): code, severity, text and the JSON
// twins' HTTP status of each, for SOAP (in-band, inside the response element) and JSON alike. The
// rate limit and malformed envelopes are no service messages: they stay SOAP faults / HTTP errors.
import { maxPurchaseOrdersPerAnswer } from '../../../projections/lookups/purchase-order-groups.js';
import { ErrorCodes, OssnError, type ErrorCode } from '../../../contracts/errors/ossn-error.js';
import type { CappedAnswer } from '../../../contracts/lookup-answers-v2.js';

export const severities = ['Error', 'Information', 'Warning'] as const;
export type Severity = (typeof severities)[number];

/** A ServiceMessage as answered: code xsd:int, description token 1..256, severity. */
export interface ServiceMessage {
  code: number;
  description: string;
  severity: Severity;
}

/** The longest description the XSDs allow (ServiceMessageDescription). */
const MAX_DESCRIPTION = 256;

/** The codes sent (never 100 or 140: §3; 130 by 2.1.0 alone, docs/design/osn-2.1.0.md §1). */
export const MessageCodes = {
  GENERAL_ERROR: 999,
  CREDENTIALS_FAILED: 105,
  CREDENTIALS_REQUIRED: 110,
  VERSION_NOT_FOUND: 115,
  FIELDS_REQUIRED: 120,
  NOT_SUPPORTED: 125,
  ANSWER_FULL: 200,
  QUERY_TYPE_NOT_FOUND: 300,
  REFERENCE_NOT_FOUND: 301,
  NO_DATA_FOUND: 130,
  INVALID_DATE: 302,
  UNAUTHORIZED: 104,
} as const;

/** The JSON twins' HTTP status by code (§1); a Warning travels with its data at 200. */
const HTTP_STATUS: Record<number, number> = {
  104: 403,
  105: 401,
  110: 401,
  115: 400,
  120: 400,
  125: 400,
  130: 404,
  200: 200,
  300: 400,
  301: 404,
  302: 400,
  999: 500,
};

export function httpStatusOf(message: ServiceMessage): number {
  return HTTP_STATUS[message.code] ?? 500;
}

/** xsd:token 1..256: whitespace collapsed (a value a client sent may carry any), then cut. */
function description(text: string): string {
  const collapsed = text.replace(/[\t\n\r ]+/g, ' ').trim();
  const points = [...collapsed];
  return points.length <= MAX_DESCRIPTION ? collapsed : points.slice(0, MAX_DESCRIPTION).join('').trimEnd();
}

const error = (code: number, text: string): ServiceMessage => ({ code, description: description(text), severity: 'Error' });

export const messages = {
  fieldsRequired: (fields: readonly string[]) => error(MessageCodes.FIELDS_REQUIRED, `The following field(s) are required: ${fields.join(', ')}`),
  versionNotFound: () => error(MessageCodes.VERSION_NOT_FOUND, 'wsVersion not found'),
  credentialsRequired: () => error(MessageCodes.CREDENTIALS_REQUIRED, 'Authentication Credentials required'),
  queryTypeNotFound: () => error(MessageCodes.QUERY_TYPE_NOT_FOUND, 'queryType not found'),
  notSupported: (field: string, value: string) => error(MessageCodes.NOT_SUPPORTED, `Not Supported: ${field} ${value}`),
  invalidDate: (field: string) => error(MessageCodes.INVALID_DATE, `${field} is incorrect or is an invalid date range`),
  credentialsFailed: () => error(MessageCodes.CREDENTIALS_FAILED, 'Authentication Credentials failed'),
  unauthorized: () => error(MessageCodes.UNAUTHORIZED, 'This account is unauthorized to use this service. Please contact the service provider'),
  notFound: (field: 'referenceNumber' | 'issueId') => error(MessageCodes.REFERENCE_NOT_FOUND, `${field} not found`),
  /** 2.1.0's answer to a reference that finds nothing, where 2.0.0 answers 301. */
  noDataFound: (): ServiceMessage => ({ code: MessageCodes.NO_DATA_FOUND, description: 'No data found', severity: 'Information' }),
  /** 2.1.0's sendAdvanceShipmentNotification sent to ossn, which only sends them. */
  notReceiving: () => error(MessageCodes.NOT_SUPPORTED, 'Not Supported: this service sends ship notifications; it does not receive them'),
  /** With the data of an answer at the cap, when more purchase orders matched than it holds. */
  answerFull: (): ServiceMessage => ({
    code: MessageCodes.ANSWER_FULL,
    description: `Answer full: ${maxPurchaseOrdersPerAnswer} purchase orders; more may match`,
    severity: 'Warning',
  }),
  generalError: () => error(MessageCodes.GENERAL_ERROR, 'General Error – Contact the System Service Provider'),
  /** A login refused because the password checks are at their bound: the general error's code, saying why and what to do. */
  busy: () => error(MessageCodes.GENERAL_ERROR, 'Server busy: retry in a second'),
  /** The JSON twins' 429 (2.0.0 has no code of its own for it; SOAP answers a fault). */
  rateLimited: () => error(MessageCodes.GENERAL_ERROR, 'Rate limit exceeded – retry after the seconds given in Retry-After'),
};

/** The 200 Warning of an answer at the cap (OSS and OSN alike), else none. */
export const capMessages = (answer: Pick<CappedAnswer<unknown>, 'more'>): ServiceMessage[] => (answer.more ? [messages.answerFull()] : []);

/** Our error code of a refusal, for logs and metrics (outcome, failed logins). */
const ERROR_CODES: Record<number, ErrorCode> = {
  104: ErrorCodes.SCOPE_FORBIDDEN,
  105: ErrorCodes.LOGIN_INVALID,
  110: ErrorCodes.CREDENTIALS_MISSING,
};

/**
 * A request refused with a service message before any lookup (arguments, credential, scope): the
 * SOAP plugin answers it in-band (HTTP 200), the JSON plugin with its HTTP status.
 */
export class ServiceMessageError extends OssnError {
  override readonly name = 'ServiceMessageError';
  constructor(readonly serviceMessage: ServiceMessage) {
    super(ERROR_CODES[serviceMessage.code] ?? ErrorCodes.BAD_REQUEST, serviceMessage.description);
  }
}
