// How OSN 2.1.0 writes 2.0.0's notification content (docs/design/osn-2.1.0.md §1, §3): every element
// inside the response element is a SharedObjects (S) one, so the content is written unprefixed in S
// declared as the default namespace; Package.shipReferences repeats without an array around it; the
// weight unit is spelled `kg` and dimensions, weights and quantities have at most 4 fraction digits.
import type { NotificationDialect } from '../../../v2-core/osn/notification-content.js';
import type { NotificationWriting } from '../../../v2-core/osn/notification-answer.js';
import type { ServiceMessage } from '../../../v2-core/service-messages.js';
import { treeXmlWriter } from '../../../protocol/soap/tree-xml.js';
import { OSN_V21_NS, OSN_V21_SHARED_NS } from '../namespaces.js';

/** 2.1.0's content: weightUOMType spells the contract's KG `kg`; fractionDigits 4 (dimensionValue, quantityValue). */
export const OSN_2_1_0: NotificationDialect = {
  weightUoms: new Map([
    ['Ounces', 'Ounces'],
    ['Pounds', 'Pounds'],
    ['Grams', 'Grams'],
    ['KG', 'kg'],
  ]),
  fractionDigits: 4,
  shipReferences: true,
};

/** Writes S elements in S as the default namespace. */
export const sharedXml = treeXmlWriter({ itemNames: { ServiceMethodArray: 'serviceMethod' }, repeated: new Set(['shipReferences']) });

export const IN_SHARED = ` xmlns="${OSN_V21_SHARED_NS}"`;

/** S:ServiceMessageArray of these messages, its namespace declared on it. */
export const messagesXml = (list: readonly ServiceMessage[]): string =>
  sharedXml.arrayXml(
    'ServiceMessageArray',
    list.map((m) => ({ code: m.code, description: m.description, severity: m.severity })),
    IN_SHARED,
  );

export const OSN_2_1_0_WRITING: NotificationWriting = {
  dialect: OSN_2_1_0,
  response: `GetOrderShipmentNotificationResponse xmlns="${OSN_V21_NS}"`,
  arrayStart: `<OrderShipmentNotificationArray${IN_SHARED}>`,
  notificationXml: (content) => sharedXml.elementXml('OrderShipmentNotification', content),
  messagesXml,
};
