// XML namespaces of the 2.0.0 services, as the official XSDs declare them (oss-osn-2.0.0.md).
export const OSS_V2_NS = 'http://www.promostandards.org/WSDL/OrderStatus/2.0.0/';
export const OSS_V2_SHARED_NS = `${OSS_V2_NS}SharedObjects/`;
export const OSN_V2_NS = 'http://www.promostandards.org/WSDL/OrderShipmentNotificationService/2.0.0/';
export const OSN_V2_SHARED_NS = `${OSN_V2_NS}SharedObjects/`;
