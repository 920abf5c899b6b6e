// The ship notification ossn pushes (docs/design/osn-2.1.0.md §2, §3): a SendAdvanceShipmentNotification
// request whose AdvanceShipmentNotification is one purchase order's whole current picture for one
// client, as a 2.1.0 queryType 1 answer shows it, without its sales-order level: every shipment of
// its sales orders, in sales-order then location order. Written as 2.1.0 writes its answers: the
// request element in M, everything in it in S (the default namespace).
import type { ShipmentNotificationV2View } from '../../../../../contracts/lookup-answers-v2.js';
import { renderEnvelope } from '../../../protocol/soap/envelope.js';
import type { Degraded } from '../../../v2-core/fitting.js';
import { orderShipmentNotificationContent } from '../../../v2-core/osn/notification-content.js';
import { OSN_V21_NS, OSN_V21_SHARED_NS } from '../namespaces.js';
import { OSN_2_1_0, sharedXml } from './notification-xml.js';

/** Who ossn is to the receiver: the id and password the partner gave for us, and the customerIdentifier they asked for. */
export interface SenderLogin {
  id: string;
  password?: string | undefined;
  customerIdentifier?: string | undefined;
}

/**
 * The SOAP envelope (UTF-8) of the notification of this purchase order, or undefined when it has no
 * shipment with a package to show (ShipmentArray needs one). Holds the receiver's password: never log it.
 */
export function advanceShipmentNotificationRequest(view: ShipmentNotificationV2View, login: SenderLogin, degraded: Degraded): Buffer | undefined {
  const content = orderShipmentNotificationContent(view, degraded, OSN_2_1_0);
  if (!content) return undefined;
  const notification = {
    purchaseOrderNumber: content.purchaseOrderNumber,
    purchaseOrderShippedInFull: content.purchaseOrderShippedInFull,
    ShipmentArray: content.SalesOrderArray.flatMap((salesOrder) => salesOrder.ShipmentArray),
  };
  const fields = sharedXml.treeXml({
    wsVersion: '2.1.0',
    id: login.id,
    password: login.password,
    customerIdentifier: login.customerIdentifier,
    AdvanceShipmentNotification: notification,
  });
  return renderEnvelope((out) =>
    out.add(`<ns:SendAdvanceShipmentNotificationRequest xmlns:ns="${OSN_V21_NS}" xmlns="${OSN_V21_SHARED_NS}">${fields}</ns:SendAdvanceShipmentNotificationRequest>`),
  );
}
