// Success answers: shape, values and validity against the official OSS/OSN 1.0.0 XSDs.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { validateSoapAnswer } from '../../../../../test/xsd/validate.js';
import { statusTypes } from '../../../../../contracts/status-types.js';
import { buildSoapTestApp } from '../../../../../test/support/test-apps.js';
import { FULL_STATUS, MINIMAL_STATUS, SHIPMENT } from '../../../../../test/fixtures/views.js';
import { ORDER_STATUS_URL, post, SHIPMENT_URL, shipmentRequest, statusDetailsRequest, statusTypesRequest } from '../../../../../test/support/soap-requests.js';
import type { FakeLookups } from '../../../../../test/support/fake-ports.js';

let app: FastifyInstance;
let lookups: FakeLookups;

beforeAll(async () => {
  ({ app, lookups } = await buildSoapTestApp());
});
afterAll(() => app.close());
beforeEach(() => {
  lookups.statuses = [];
  lookups.notifications = [];
  lookups.statusCalls.length = 0;
  lookups.shipmentCalls.length = 0;
});

const OSS = 'http://www.promostandards.org/WSDL/OrderStatusService/1.0.0/';

describe('getOrderStatusDetails', () => {
  it('answers a minimal status exactly, in the OSS namespace', async () => {
    lookups.statuses = [MINIMAL_STATUS];
    const res = await post(app, ORDER_STATUS_URL, statusDetailsRequest());
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/xml; charset=utf-8');
    expect(res.body).toBe(
      '<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>' +
        `<GetOrderStatusDetailsResponse xmlns="${OSS}"><OrderStatusArray><OrderStatus><purchaseOrderNumber>PO-2</purchaseOrderNumber>` +
        '<OrderStatusDetailArray><OrderStatusDetail><factoryOrderNumber>SO-3</factoryOrderNumber><statusID>10</statusID>' +
        '<validTimestamp>2025-01-01T00:00:00.000Z</validTimestamp></OrderStatusDetail></OrderStatusDetailArray></OrderStatus>' +
        '</OrderStatusArray></GetOrderStatusDetailsResponse></soap:Body></soap:Envelope>',
    );
    expect(await validateSoapAnswer('oss', res.body)).toEqual([]);
  });

  it('answers every optional field in schema order, escaped, and valid', async () => {
    lookups.statuses = [FULL_STATUS];
    const res = await post(app, ORDER_STATUS_URL, statusDetailsRequest());
    expect(res.body).toContain('<purchaseOrderNumber>PO-1001 &lt;A&amp;B&gt;</purchaseOrderNumber>');
    expect(res.body).toContain(
      '<OrderStatusDetail><factoryOrderNumber>SO-1</factoryOrderNumber><statusID>60</statusID><statusName>In Production</statusName>' +
        '<expectedShipDate>2025-03-01T00:00:00.000Z</expectedShipDate><expectedDeliveryDate>2025-03-05T17:30:00.250Z</expectedDeliveryDate>' +
        '<responseRequired>true</responseRequired><validTimestamp>2025-02-20T08:15:00.000Z</validTimestamp></OrderStatusDetail>',
    );
    expect(res.body).toContain('<responseRequired>false</responseRequired>');
    expect(res.body).not.toMatch(/ResponseToArray|additionalExplanation|errorMessage/);
    expect(await validateSoapAnswer('oss', res.body)).toEqual([]);
  });

  it('answers several purchase orders in the order the lookup gives', async () => {
    lookups.statuses = [FULL_STATUS, MINIMAL_STATUS, { ...MINIMAL_STATUS, purchaseOrderNumber: 'PO-3' }];
    const res = await post(app, ORDER_STATUS_URL, statusDetailsRequest());
    const numbers = [...res.body.matchAll(/<purchaseOrderNumber>([^<]*)</g)].map((m) => m[1]);
    expect(numbers).toEqual(['PO-1001 &lt;A&amp;B&gt;', 'PO-2', 'PO-3']);
    expect(await validateSoapAnswer('oss', res.body)).toEqual([]);
  });

  it('answers no orders with an empty OrderStatusArray (the only XSD complaint: it wants one OrderStatus)', async () => {
    const res = await post(app, ORDER_STATUS_URL, statusDetailsRequest());
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(`<GetOrderStatusDetailsResponse xmlns="${OSS}"><OrderStatusArray/></GetOrderStatusDetailsResponse>`);
    const errors = await validateSoapAnswer('oss', res.body);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/OrderStatusArray': Missing child element\(s\)\. Expected is \( \{[^}]+\}OrderStatus \)/);
  });

  it('passes the credential clients and the query to the lookup', async () => {
    await post(app, ORDER_STATUS_URL, statusDetailsRequest({ queryType: '1', referenceNumber: 'PO-1' }));
    await post(app, ORDER_STATUS_URL, statusDetailsRequest({ queryType: '2', referenceNumber: 'SO-1' }));
    await post(app, ORDER_STATUS_URL, statusDetailsRequest({ queryType: '3', statusTimeStamp: '2025-02-01T10:00:00-05:00' }));
    await post(app, ORDER_STATUS_URL, statusDetailsRequest({ queryType: '4', statusTimeStamp: 'not used' }));
    expect(lookups.statusCalls).toEqual([
      { clientIds: ['C1', 'C2'], query: { queryType: 1, referenceNumber: 'PO-1' } },
      { clientIds: ['C1', 'C2'], query: { queryType: 2, referenceNumber: 'SO-1' } },
      { clientIds: ['C1', 'C2'], query: { queryType: 3, statusTimeStamp: new Date('2025-02-01T15:00:00Z') } },
      { clientIds: ['C1', 'C2'], query: { queryType: 4 } },
    ]);
  });

  it.each(['0', '5', '-1', '99999999999999999999'])('answers queryType %s with an empty array without a lookup', async (queryType) => {
    lookups.statuses = [MINIMAL_STATUS];
    const res = await post(app, ORDER_STATUS_URL, statusDetailsRequest({ queryType }));
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<OrderStatusArray/>');
    expect(lookups.statusCalls).toEqual([]);
  });
});

describe('getOrderStatusTypes', () => {
  it('answers the 14 statuses of the schema, valid', async () => {
    const res = await post(app, ORDER_STATUS_URL, statusTypesRequest());
    expect(res.statusCode).toBe(200);
    const pairs = [...res.body.matchAll(/<Status><id>(\d+)<\/id><name>([^<]+)<\/name><\/Status>/g)].map((m) => ({ id: Number(m[1]), name: m[2] }));
    expect(pairs).toEqual(statusTypes.map((s) => ({ id: s.statusId, name: s.statusName })));
    expect(pairs.map((p) => p.id)).toEqual([10, 11, 20, 30, 40, 41, 42, 43, 44, 60, 70, 75, 80, 99]);
    expect(res.body).toContain(`<GetOrderStatusTypesResponse xmlns="${OSS}"><StatusArray>`);
    expect(await validateSoapAnswer('oss', res.body)).toEqual([]);
  });
});

describe('getOrderShipmentNotification', () => {
  it('answers locations, packages with items and dimensions, addresses with lines 2-4, valid', async () => {
    lookups.notifications = [SHIPMENT, { ...SHIPMENT, purchaseOrderNumber: 'PO-1002', complete: true }];
    const res = await post(app, SHIPMENT_URL, shipmentRequest());
    expect(res.statusCode).toBe(200);
    expect(await validateSoapAnswer('osn', res.body)).toEqual([]);
    expect(res.body).toContain(
      '<GetOrderShipmentNotificationResponse xmlns="http://www.promostandards.org/WSDL/OrderShipmentNotificationService/1.0.0/" ' +
        'xmlns:shar="http://www.promostandards.org/WSDL/OrderShipmentNotificationService/1.0.0/SharedObjects/">',
    );
    // Address lines are in the SharedObjects namespace; the address elements themselves are not.
    expect(res.body).toContain(
      '<ShipToAddress><shar:address1>Acme &amp; Sons</shar:address1><shar:address2>Attn: Receiving</shar:address2>' +
        '<shar:address3>Building 7</shar:address3><shar:address4>Dock &lt;3&gt;</shar:address4><shar:city>Chicago</shar:city>' +
        '<shar:region>IL</shar:region><shar:postalCode>60601</shar:postalCode><shar:country>US</shar:country></ShipToAddress>' +
        '<shipmentDestinationType>Commercial</shipmentDestinationType>',
    );
    expect(res.body).toContain(
      '<Package><id>1</id><trackingNumber>1Z999</trackingNumber><shipmentDate>2025-02-01T12:00:00.000Z</shipmentDate>' +
        '<dimUOM>Inches</dimUOM><length>12</length><width>10.5</width><height>0.0000001</height><weightUOM>Pounds</weightUOM>' +
        '<weight>1000000000000000000000</weight><carrier>UPS</carrier><shipmentMethod>Ground</shipmentMethod>' +
        '<shippingAccount>ACC-9</shippingAccount><shipmentTerms>Prepaid</shipmentTerms><ItemArray>',
    );
    expect(res.body).toContain('<Item><supplierProductId>P200</supplierProductId><quantity>2.5</quantity></Item>');
    // A package without options, a location without packages, a package with no items.
    expect(res.body).toContain('<Package><trackingNumber>1Z998</trackingNumber><shipmentDate>2025-02-02T00:00:00.000Z</shipmentDate></Package>');
    expect(res.body).toContain('<shar:postalCode>73301</shar:postalCode></ShipToAddress></ShipmentLocation>');
    expect(res.body).toContain('<shipmentDate>2025-02-03T00:00:00.000Z</shipmentDate></Package>');
    expect(res.body).toContain('<purchaseOrderNumber>PO-1002</purchaseOrderNumber><complete>true</complete>');
    expect(res.body).not.toContain('errorMessage');
  });

  it('answers a purchase order without sales orders, valid', async () => {
    lookups.notifications = [{ purchaseOrderNumber: 'PO-9', complete: true, salesOrders: [] }];
    const res = await post(app, SHIPMENT_URL, shipmentRequest());
    expect(res.body).toContain('<OrderShipmentNotification><purchaseOrderNumber>PO-9</purchaseOrderNumber><complete>true</complete></OrderShipmentNotification>');
    expect(await validateSoapAnswer('osn', res.body)).toEqual([]);
  });

  it('answers no shipments without OrderShipmentNotificationArray, which is what validates', async () => {
    const res = await post(app, SHIPMENT_URL, shipmentRequest());
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/<GetOrderShipmentNotificationResponse [^>]*\/><\/soap:Body>/);
    expect(await validateSoapAnswer('osn', res.body)).toEqual([]);
  });

  it('passes the credential clients and the query to the lookup', async () => {
    await post(app, SHIPMENT_URL, shipmentRequest({ queryType: '1', referenceNumber: 'PO-1', shipmentDateTimeStamp: undefined }));
    await post(app, SHIPMENT_URL, shipmentRequest({ queryType: '2', referenceNumber: 'SO-1' }));
    await post(app, SHIPMENT_URL, shipmentRequest({ queryType: '3', shipmentDateTimeStamp: '2025-02-01T10:00:00' }));
    expect(lookups.shipmentCalls).toEqual([
      { clientIds: ['C1', 'C2'], query: { queryType: 1, referenceNumber: 'PO-1' } },
      { clientIds: ['C1', 'C2'], query: { queryType: 2, referenceNumber: 'SO-1' } },
      { clientIds: ['C1', 'C2'], query: { queryType: 3, shipmentDateTimeStamp: new Date('2025-02-01T10:00:00Z') } },
    ]);
  });

  it.each(['4', '0', '7'])('answers queryType %s with an empty answer without a lookup', async (queryType) => {
    lookups.notifications = [SHIPMENT];
    const res = await post(app, SHIPMENT_URL, shipmentRequest({ queryType }));
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('OrderShipmentNotificationArray');
    expect(lookups.shipmentCalls).toEqual([]);
  });
});
