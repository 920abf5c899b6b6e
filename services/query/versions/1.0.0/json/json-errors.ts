// The JSON error table of service.md plus the 400s of queries.md, mapped in one error handler:
// every failure of the JSON routes, Fastify's own validation errors included, becomes {"error": …}.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { answerRefusal } from '../../../access/refusals.js';
import { ErrorCodes, OssnError, type ErrorCode } from '../../../../../contracts/errors/ossn-error.js';
import { MAX_FIELD_LENGTH } from '../../../protocol/field-length.js';
import { BASIC_REALM } from '../../../protocol/json/basic-auth.js';

export const MISSING_CREDENTIALS = 'Missing credentials — use HTTP Basic auth (id:password)';
export const INVALID_CREDENTIALS = 'Invalid id or password';
/** The date-times the JSON routes read (../../../request-date-time.ts), as an error names them. */
export const JSON_DATE_TIME_FORM = 'an ISO 8601 date-time (without a time zone: UTC)';

/** An answer other than 200 with this status and error text. */
export class JsonHttpError extends OssnError {
  override readonly name: string = 'JsonHttpError';
  constructor(
    code: ErrorCode,
    readonly statusCode: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(code, message);
  }
}

export class BadRequestError extends JsonHttpError {
  constructor(message: string) {
    super(ErrorCodes.BAD_REQUEST, 400, message);
  }
}

export class MissingCredentialsError extends JsonHttpError {
  constructor() {
    super(ErrorCodes.CREDENTIALS_MISSING, 401, MISSING_CREDENTIALS, { 'www-authenticate': BASIC_REALM });
  }
}

/** Counted as a failed login by the address limit. */
export class InvalidCredentialsError extends JsonHttpError {
  override readonly name = 'InvalidCredentialsError';
  constructor() {
    super(ErrorCodes.LOGIN_INVALID, 401, INVALID_CREDENTIALS, { 'www-authenticate': BASIC_REALM });
  }
}

export class ScopeForbiddenError extends JsonHttpError {
  constructor(scope: string) {
    super(ErrorCodes.SCOPE_FORBIDDEN, 403, `Credential not permitted for scope: ${scope}`);
  }
}

export const tooLong = (field: string, where: string) => `${where} too long: ${field} (at most ${MAX_FIELD_LENGTH} characters)`;

interface AjvError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

/** The first schema violation as a sentence naming the query parameter. */
export function describeValidation(errors: readonly AjvError[]): string {
  const first = errors[0];
  if (!first) return 'Invalid query parameters';
  if (first.keyword === 'required') return `Missing query parameter: ${String(first.params['missingProperty'])}`;
  const field = first.instancePath.replace(/^\//, '').split('/')[0] || 'query';
  switch (first.keyword) {
    case 'maxLength':
      return tooLong(field, 'Query parameter');
    case 'format':
      return `Invalid query parameter: ${field} (not ${JSON_DATE_TIME_FORM})`;
    case 'type':
      return first.params['type'] === 'integer'
        ? `Invalid query parameter: ${field} (not an integer)`
        : `Invalid query parameter: ${field} (must be a single ${String(first.params['type'])})`;
    default:
      return `Invalid query parameter: ${field} (${first.message ?? first.keyword})`;
  }
}

// Fastify's own request errors (bad content length, unsupported media type…).
function isFastifyClientError(error: FastifyError): boolean {
  const status = error.statusCode ?? 500;
  return typeof error.code === 'string' && error.code.startsWith('FST_') && status >= 400 && status < 500;
}

function sendHttpError(error: JsonHttpError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error.statusCode !== 400) request.log.info({ status: error.statusCode, error: error.message }, 'JSON request refused');
  return reply.code(error.statusCode).headers(error.headers).send({ error: error.message });
}

export function handleJsonError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const refused = answerRefusal(error, request, {
    rateLimited: ({ retryAfterSeconds }) => reply.code(429).header('retry-after', String(retryAfterSeconds)).send({ error: 'Rate limit exceeded' }),
    busy: () => reply.code(503).header('retry-after', '1').send({ error: 'Service busy — retry later' }),
    loginFailed: () => sendHttpError(new InvalidCredentialsError(), request, reply),
    forbidden: ({ scope }) => sendHttpError(new ScopeForbiddenError(scope), request, reply),
  });
  if (refused) return refused;
  if (error instanceof JsonHttpError) return sendHttpError(error, request, reply);
  if (error.validation) {
    return reply.code(400).send({ error: describeValidation(error.validation as AjvError[]) });
  }
  if (isFastifyClientError(error)) {
    return reply.code(error.statusCode ?? 400).send({ error: error.message });
  }
  // Details go to the log only: an answer must not reveal internals.
  request.log.error({ err: error }, 'JSON request failed');
  return reply.code(500).send({ error: 'Internal error' });
}
