// The validator must catch what the SOAP answers could get wrong: order, namespaces, types.
import { describe, expect, it } from 'vitest';
import { validateSoapAnswer } from './validate.js';

const OSS = 'http://www.promostandards.org/WSDL/OrderStatusService/1.0.0/';
const OSN = 'http://www.promostandards.org/WSDL/OrderShipmentNotificationService/1.0.0/';
const SHARED = `${OSN}SharedObjects/`;
const soap = (payload: string) => `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>${payload}</s:Body></s:Envelope>`;
const detail = (inner: string) =>
  soap(`<GetOrderStatusDetailsResponse xmlns="${OSS}"><OrderStatusArray><OrderStatus><purchaseOrderNumber>P</purchaseOrderNumber><OrderStatusDetailArray><OrderStatusDetail>${inner}</OrderStatusDetail></OrderStatusDetailArray></OrderStatus></OrderStatusArray></GetOrderStatusDetailsResponse>`);
const address = (prefix: string) =>
  `<${prefix}address1>a</${prefix}address1><${prefix}city>c</${prefix}city><${prefix}region>TX</${prefix}region><${prefix}postalCode>1</${prefix}postalCode>`;
const shipment = (addr: string) =>
  soap(
    `<GetOrderShipmentNotificationResponse xmlns="${OSN}" xmlns:sh="${SHARED}"><OrderShipmentNotificationArray><OrderShipmentNotification><purchaseOrderNumber>P</purchaseOrderNumber><complete>true</complete>` +
      `<SalesOrderArray><SalesOrder><salesOrderNumber>S</salesOrderNumber><complete>true</complete><ShipmentLocationArray><ShipmentLocation><complete>true</complete>` +
      `<ShipFromAddress>${addr}</ShipFromAddress><ShipToAddress>${addr}</ShipToAddress></ShipmentLocation></ShipmentLocationArray></SalesOrder></SalesOrderArray>` +
      `</OrderShipmentNotification></OrderShipmentNotificationArray></GetOrderShipmentNotificationResponse>`,
  );

describe('validateSoapAnswer', () => {
  it('accepts valid answers', async () => {
    expect(await validateSoapAnswer('oss', detail('<factoryOrderNumber>F</factoryOrderNumber><statusID>10</statusID><validTimestamp>2025-01-01T00:00:00Z</validTimestamp>'))).toEqual([]);
    expect(await validateSoapAnswer('osn', shipment(address('sh:')))).toEqual([]);
  });

  it('rejects elements out of schema order', async () => {
    const errors = await validateSoapAnswer('oss', detail('<statusID>10</statusID><factoryOrderNumber>F</factoryOrderNumber><validTimestamp>2025-01-01T00:00:00Z</validTimestamp>'));
    expect(errors.join('\n')).toMatch(/statusID': This element is not expected/);
  });

  it('rejects a statusID outside the enumeration and a decimal in exponent form', async () => {
    expect(await validateSoapAnswer('oss', detail('<factoryOrderNumber>F</factoryOrderNumber><statusID>12</statusID><validTimestamp>2025-01-01T00:00:00Z</validTimestamp>'))).not.toEqual([]);
    const exp = shipment(address('sh:')).replace('<ShipmentLocation>', '<ShipmentLocation><id>1e3</id>');
    expect((await validateSoapAnswer('osn', exp)).join('\n')).toMatch(/'1e3' is not a valid value of the atomic type 'xs:integer'/);
  });

  it('rejects address lines outside the SharedObjects namespace', async () => {
    expect((await validateSoapAnswer('osn', shipment(address('')))).join('\n')).toMatch(/address1': This element is not expected/);
  });

  it('rejects a payload no schema declares', async () => {
    expect(await validateSoapAnswer('oss', soap('<x:Foo xmlns:x="urn:x"/>'))).not.toEqual([]);
  });
});

describe('validateSoapAnswer, 2.0.0', () => {
  const M = 'http://www.promostandards.org/WSDL/OrderStatus/2.0.0/';
  const methods = (ns: string) => soap(`<GetServiceMethodsResponse xmlns="${M}"><ServiceMethodArray xmlns="${ns}"><serviceMethod>getIssue</serviceMethod></ServiceMethodArray></GetServiceMethodsResponse>`);
  const OSN2 = 'http://www.promostandards.org/WSDL/OrderShipmentNotificationService/2.0.0/';
  const osnMessage = (ns: string) =>
    soap(`<GetOrderShipmentNotificationResponse xmlns="${OSN2}"><ServiceMessageArray><ServiceMessage xmlns="${ns}"><code>301</code><description>referenceNumber not found</description><severity>Error</severity></ServiceMessage></ServiceMessageArray></GetOrderShipmentNotificationResponse>`);

  it('accepts content in SharedObjects and rejects it in the service namespace', async () => {
    expect(await validateSoapAnswer('oss-2.0.0', methods(`${M}SharedObjects/`))).toEqual([]);
    expect((await validateSoapAnswer('oss-2.0.0', methods(M))).join('\n')).toMatch(/ServiceMethodArray': This element is not expected/);
  });

  it('OSN: M:ServiceMessageArray holds S:ServiceMessage, not M:ServiceMessage; an empty array is invalid', async () => {
    expect(await validateSoapAnswer('osn-2.0.0', osnMessage(`${OSN2}SharedObjects/`))).toEqual([]);
    expect(await validateSoapAnswer('osn-2.0.0', osnMessage(OSN2))).not.toEqual([]);
    expect(await validateSoapAnswer('osn-2.0.0', soap(`<GetOrderShipmentNotificationResponse xmlns="${OSN2}"><ServiceMessageArray/></GetOrderShipmentNotificationResponse>`))).not.toEqual([]);
  });
});
