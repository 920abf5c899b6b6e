// The SOAP operations of each endpoint, chosen by the local name of the Body's first element.
// Order of checks: arguments, then the access step (credential, rate limit, scope), then the lookup.
import type { OrderLookups } from '../../../../../contracts/lookups.js';
import type { RequestWork } from '../../../http/request-work.js';
import type { Credential, Scope } from '../../../../domain/credentials/credential.js';
import { authorize as access, type Access } from '../../../access/authorize.js';
import { orderStatusDetailsPayload, orderStatusTypesPayload } from './order-status-tree.js';
import { shipmentNotificationPayloadAsRead } from './shipment-notification-tree.js';
import type { BodyContent } from '../../../protocol/soap/envelope.js';
import type { XmlElement } from '../../../protocol/soap/parse-envelope.js';
import { readLogin, readShipmentRequest, readStatusDetailsRequest, type LoginFields } from './read-request.js';

export type OperationName = 'getOrderStatusDetails' | 'getOrderStatusTypes' | 'getOrderShipmentNotification';

/** One request's: what it is let in by, the lookups, and what its lookup is bound to (cancelled with the request, one of the credential's slots). */
export interface OperationContext extends Access {
  lookups: OrderLookups;
  work?: RequestWork | undefined;
}

export interface Operation {
  name: OperationName;
  /** What writes the answer's Body content. */
  run(request: XmlElement, context: OperationContext): Promise<BodyContent>;
}

/** A login without an id has nothing to check; a missing password is an empty one. */
function authorize(login: LoginFields, scope: Scope, context: OperationContext): Promise<Credential> {
  const sent = login.id === undefined ? undefined : { id: login.id, password: login.password ?? '' };
  return access(sent, scope, context);
}

const getOrderStatusDetails: Operation = {
  name: 'getOrderStatusDetails',
  async run(request, context) {
    const { login, query } = readStatusDetailsRequest(request);
    const credential = await authorize(login, 'order_status', context);
    const orders = await query.answer(context.lookups, credential, context.work);
    return (out) => orderStatusDetailsPayload(orders, out);
  },
};

const getOrderStatusTypes: Operation = {
  name: 'getOrderStatusTypes',
  async run(request, context) {
    await authorize(readLogin(request), 'order_status', context);
    return orderStatusTypesPayload;
  },
};

const getOrderShipmentNotification: Operation = {
  name: 'getOrderShipmentNotification',
  async run(request, context) {
    const { login, query } = readShipmentRequest(request);
    const credential = await authorize(login, 'osn', context);
    const batches = await query.answer(context.lookups, credential, context.work);
    return { streamed: (out) => shipmentNotificationPayloadAsRead(batches, out) };
  },
};

/** Request element local name -> operation, per endpoint. */
export type OperationTable = ReadonlyMap<string, Operation>;

export const ORDER_STATUS_OPERATIONS: OperationTable = new Map([
  ['GetOrderStatusDetailsRequest', getOrderStatusDetails],
  ['GetOrderStatusTypesRequest', getOrderStatusTypes],
]);

export const SHIPMENT_NOTIFICATION_OPERATIONS: OperationTable = new Map([
  ['GetOrderShipmentNotificationRequest', getOrderShipmentNotification],
]);
