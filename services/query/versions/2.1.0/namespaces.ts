// XML namespaces of OSN 2.1.0, as the official XSDs declare them (docs/design/osn-2.1.0.md).
export const OSN_V21_NS = 'http://www.promostandards.org/WSDL/OrderShipmentNotificationService/2.1.0/';
export const OSN_V21_SHARED_NS = `${OSN_V21_NS}SharedObjects/`;
