// XML namespaces of OSN 2.0.0, as GetOrderShipmentNotificationResponse.xsd (M) and
// SharedOSNObjects.xsd (S) declare them.
export const OSN_V2_NS = 'http://www.promostandards.org/WSDL/OrderShipmentNotificationService/2.0.0/';
export const OSN_V2_SHARED_NS = 'http://www.promostandards.org/WSDL/OrderShipmentNotificationService/2.0.0/SharedObjects/';
