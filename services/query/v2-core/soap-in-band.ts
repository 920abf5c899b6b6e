// How the 2.x SOAP endpoints (OSS and OSN 2.0.0, OSN 2.1.0) answer refusals and failures: inside
// the response element of the operation asked for, HTTP 200, as service messages
// (oss-osn-2.0.0.md §3); before the operation is known, a SOAP fault.
import type { FastifyReply } from 'fastify';
import { renderEnvelope, type Payload } from '../protocol/soap/envelope.js';
import { sendFault, XML_CONTENT_TYPE } from '../protocol/soap/soap-http.js';
import type { Failure, SoapOperation, SoapVersion } from '../protocol/soap/soap-plugin.js';
import { messages, ServiceMessageError, type ServiceMessage } from './service-messages.js';

function sendAnswer(reply: FastifyReply, payload: Payload): FastifyReply {
  return reply.code(200).type(XML_CONTENT_TYPE).send(renderEnvelope(payload));
}

/** An operation that can write its response element around service messages alone. */
interface AnswersInBand {
  messagesOnly(list: readonly ServiceMessage[]): Payload;
}

/** The refusals and failures of a 2.x SOAP version; `label` names it in logs. */
export function inBandFailures<O extends SoapOperation<C> & AnswersInBand, C>(label: string): Pick<SoapVersion<O, C>, 'refusals' | 'failed'> {
  const sendMessages = ({ request, reply, operation }: Failure<O>, list: readonly ServiceMessage[]): FastifyReply => {
    if (operation) return sendAnswer(reply, operation.messagesOnly(list));
    request.log.error({ messages: list }, `${label} request failed`);
    return sendFault(reply, 500, 'soap:Server', 'Internal error');
  };
  return {
    refusals: (failure) => ({
      busy: () => sendMessages({ ...failure, reply: failure.reply.header('Retry-After', '1') }, [messages.busy()]),
      loginFailed: () => sendMessages(failure, [messages.credentialsFailed()]),
      forbidden: () => sendMessages(failure, [messages.unauthorized()]),
    }),
    failed: (error, failure) => {
      const { request, reply, operation } = failure;
      if (!operation) {
        request.log.error({ err: error }, `${label} request failed`);
        return sendFault(reply, 500, 'soap:Server', 'Internal error');
      }
      if (error instanceof ServiceMessageError) return sendMessages(failure, [error.serviceMessage]);
      request.log.error({ err: error }, `${label} operation failed`);
      return sendMessages(failure, [messages.generalError()]);
    },
  };
}
