// XML namespaces of the two PromoStandards 1.0.0 services, as the official XSDs declare them.
export const OSS_NS = 'http://www.promostandards.org/WSDL/OrderStatusService/1.0.0/';
export const OSN_NS = 'http://www.promostandards.org/WSDL/OrderShipmentNotificationService/1.0.0/';
export const OSN_SHARED_NS = 'http://www.promostandards.org/WSDL/OrderShipmentNotificationService/1.0.0/SharedObjects/';
