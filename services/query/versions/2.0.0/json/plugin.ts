// Fastify plugin (encapsulated) serving the JSON twins of the 2.0.0 SOAP operations under
// /api/partners/v2 (oss-osn-2.0.0.md §1, §10.5): HTTP Basic auth, the SOAP request's fields as
// query parameters, the SOAP 2.0.0 content as the body, and the same checks in the same order;
// every refusal, the rate limit's 429 included, as {"ServiceMessageArray":[…]} with the HTTP status
// of its code, mapped in one error handler.
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { basicAuth, documentedEnums } from '../../../http/openapi.js';
import { JSON_CONTENT_TYPE, sendJsonAsRead, sendJsonBody } from '../../../protocol/json/json-body.js';
import { jsonPlugin, type JsonPluginOptions } from '../../../protocol/json/json-plugin.js';
import { labelRequest } from '../../../http/request-labels.js';
import { BASIC_REALM, readBasicAuth } from '../../../protocol/json/basic-auth.js';
import { answerRefusal } from '../../../access/refusals.js';
import { parseRequestDateTime } from '../../../request-date-time.js';
import { answerContext, issueAnswer, orderStatusAnswer, shipmentAnswer, type V2ServiceOptions } from '../../../v2-core/answers.js';
import { shipmentNotificationV2JsonAsRead } from '../osn/shipment-notification-answer.js';
import { issuesJson, orderStatusJson } from '../oss/order-status-tree.js';
import { readIssueRequest, readOrderStatusRequest, readShipmentRequest, type RequestSource } from '../../../v2-core/read-request.js';
import { httpStatusOf, messages, ServiceMessageError, type ServiceMessage } from '../../../v2-core/service-messages.js';
import {
  errorResponses,
  issuesOk,
  issuesQuerystring,
  orderStatusOk,
  SHIPMENT_ENUMS,
  shipmentsOk,
  shipmentsQuerystring,
  STATUS_ENUMS,
  statusQuerystring,
  type V2Querystring,
} from './schemas.js';

export const PARTNER_API_V2_PREFIX = '/api/partners/v2';
export const ORDER_STATUS_JSON_V2_PATH = `${PARTNER_API_V2_PREFIX}/orders/status`;
export const SHIPMENTS_JSON_V2_PATH = `${PARTNER_API_V2_PREFIX}/orders/shipments`;
export const ISSUES_JSON_V2_PATH = `${PARTNER_API_V2_PREFIX}/issues`;
export const OPENAPI_V2_PATH = `${PARTNER_API_V2_PREFIX}/openapi.json`;

export type PartnerJsonV2Options = V2ServiceOptions & JsonPluginOptions;

/**
 * The query parameters as the SOAP fields (trimmed, empty = absent), the login from HTTP Basic
 * auth. A parameter given more than once is refused (125) whatever its spelling: the schema knows
 * each field's main spelling, not its aliases (statusTimestamp, shipmentDateTimeStamp).
 */
function jsonSource(request: FastifyRequest<{ Querystring: V2Querystring }>): RequestSource {
  return {
    field: (name) => {
      const given: unknown = request.query[name];
      if (Array.isArray(given)) throw new ServiceMessageError(messages.notSupported(name, '(given more than once)'));
      const value = typeof given === 'string' ? given.trim() : undefined;
      return value === '' ? undefined : value;
    },
    versioned: false,
    login: () => {
      const login = readBasicAuth(request.headers.authorization);
      if (login === 'malformed') return 'unreadable';
      // An empty id or password is a missing one, as an empty SOAP field is.
      return login === undefined || login.id === '' || login.password === '' ? undefined : login;
    },
    parseDateTime: parseRequestDateTime,
  };
}

function sendMessages(reply: FastifyReply, list: readonly ServiceMessage[], status: number): FastifyReply {
  if (status === 401) reply.header('www-authenticate', BASIC_REALM);
  return reply.code(status).type(JSON_CONTENT_TYPE).send({ ServiceMessageArray: list });
}

/** The message with the JSON twins' HTTP status of its code. */
const sendMessage = (reply: FastifyReply, message: ServiceMessage) => sendMessages(reply, [message], httpStatusOf(message));

function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const refused = answerRefusal(error, request, {
    rateLimited: ({ retryAfterSeconds }) => sendMessages(reply.header('retry-after', String(retryAfterSeconds)), [messages.rateLimited()], 429),
    busy: () => sendMessages(reply.header('retry-after', '1'), [messages.busy()], 503),
    loginFailed: () => sendMessage(reply, messages.credentialsFailed()),
    forbidden: () => sendMessage(reply, messages.unauthorized()),
  });
  if (refused) return refused;
  if (error instanceof ServiceMessageError) return sendMessage(reply, error.serviceMessage);
  if (error.validation) {
    // The only schema rule: one value per parameter.
    const field = error.validation[0]?.instancePath.replace(/^\//, '') || 'query';
    return sendMessages(reply, [messages.notSupported(field, '(given more than once)')], 400);
  }
  request.log.error({ err: error }, 'JSON v2 request failed');
  return sendMessages(reply, [messages.generalError()], 500);
}

const routes: FastifyPluginAsync<PartnerJsonV2Options> = async (app, options) => {
  const degraded = options.degraded ?? (() => undefined);
  const context = (request: FastifyRequest) => answerContext(options, request);
  // A lookup that found nothing: 301 as 404, counted ok as SOAP's in-band 301 and 1.0.0's empty answer are.
  const notFound = (request: FastifyRequest, reply: FastifyReply, field: 'referenceNumber' | 'issueId') => {
    labelRequest(request, { outcome: 'ok' });
    return sendMessages(reply, [messages.notFound(field)], 404);
  };

  app.get<{ Querystring: V2Querystring }>(
    '/orders/status',
    {
      config: { swaggerTransform: documentedEnums(STATUS_ENUMS), metrics: { interface: 'json', operation: 'v2/getOrderStatus' } },
      schema: {
        operationId: 'getOrderStatusV2',
        summary: 'Twin of SOAP OSS 2.0.0 getOrderStatus',
        description: 'The credential’s orders as OSS 2.0.0 answers them, at most 5,000 purchase orders. Needs scope order_status.',
        security: basicAuth,
        querystring: statusQuerystring,
        response: { 200: orderStatusOk, ...errorResponses },
      },
    },
    async (request, reply) => {
      const answer = await orderStatusAnswer(readOrderStatusRequest(jsonSource(request)), context(request));
      if ('notFound' in answer) return notFound(request, reply, answer.notFound);
      return sendJsonBody(reply, orderStatusJson(answer.found, degraded));
    },
  );

  app.get<{ Querystring: V2Querystring }>(
    '/issues',
    {
      config: { metrics: { interface: 'json', operation: 'v2/getIssue' } },
      schema: {
        operationId: 'getIssueV2',
        summary: 'Twin of SOAP OSS 2.0.0 getIssue',
        description: 'One issue of the credential’s orders. Needs scope order_status.',
        security: basicAuth,
        querystring: issuesQuerystring,
        response: { 200: issuesOk, ...errorResponses },
      },
    },
    async (request, reply) => {
      const answer = await issueAnswer(readIssueRequest(jsonSource(request)), context(request));
      if ('notFound' in answer) return notFound(request, reply, answer.notFound);
      return sendJsonBody(reply, issuesJson(answer.found));
    },
  );

  app.get<{ Querystring: V2Querystring }>(
    '/orders/shipments',
    {
      config: { swaggerTransform: documentedEnums(SHIPMENT_ENUMS), metrics: { interface: 'json', operation: 'v2/getShipments' } },
      schema: {
        operationId: 'getShipmentsV2',
        summary: 'Twin of SOAP OSN 2.0.0 getOrderShipmentNotification',
        description: 'Shipments of the credential’s orders as OSN 2.0.0 answers them, at most 5,000 purchase orders. Needs scope osn.',
        security: basicAuth,
        querystring: shipmentsQuerystring,
        response: { 200: shipmentsOk, ...errorResponses },
      },
    },
    async (request, reply) => {
      const answer = await shipmentAnswer(readShipmentRequest(jsonSource(request)), context(request));
      if ('notFound' in answer) return notFound(request, reply, answer.notFound);
      return sendJsonAsRead(reply, shipmentNotificationV2JsonAsRead(answer.found, degraded));
    },
  );
};

export const partnerJsonApiV2 = jsonPlugin<PartnerJsonV2Options>({
  prefix: PARTNER_API_V2_PREFIX,
  info: {
    title: 'ossn partner API, 2.0.0',
    version: '2.0.0',
    description:
      'Order status, issues and shipments of a partner’s orders: the JSON twins of the PromoStandards OSS/OSN 2.0.0 SOAP services. Every refusal is a ServiceMessageArray with the HTTP status of its code.',
  },
  handleError,
  passwordInUrl: () => new ServiceMessageError(messages.notSupported('password', 'in the URL: send the credential with HTTP Basic auth')),
  routes,
});
