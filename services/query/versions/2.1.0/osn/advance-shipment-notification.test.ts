// The pushed notification (docs/design/osn-2.1.0.md §2, §3): every request validates against the
// official SendAdvanceShipmentNotificationRequest.xsd (libxml2), holds the purchase order's whole
// picture without its sales-order level, and carries the login the partner gave for us.
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import type { ShipmentNotificationV2View, ShipmentV2View } from '../../../../../contracts/lookup-answers-v2.js';
import { validateSoapAnswer } from '../../../../../test/xsd/validate.js';
import { advanceShipmentNotificationRequest } from './advance-shipment-notification.js';

const address = { address1: '1 Main St', city: 'Springfield', region: 'IL', postalCode: '62701' };
const location = (id: number, tracking: string, over: Partial<ShipmentV2View> = {}): ShipmentV2View => ({
  id,
  complete: false,
  shipFromAddress: address,
  shipToAddress: { ...address, address1: `${id} Elm St` },
  packages: [{ id: 1, trackingNumber: tracking, shipmentDate: new Date('2025-03-04T05:06:07Z'), weightUOM: 'KG', weight: 2.00005 }],
  ...over,
});

const PO: ShipmentNotificationV2View = {
  purchaseOrderNumber: 'PO-7',
  complete: false,
  salesOrders: [
    { salesOrderNumber: 'SO-1', complete: true, shipments: [location(1, 'T-1A'), location(2, 'T-1B', { packages: [] })] },
    { salesOrderNumber: 'SO-2', complete: false, shipments: [location(1, 'T-2A', { packages: [{ id: 4, trackingNumber: 'T-2A', shipmentDate: new Date('2025-03-05T00:00:00Z'), shipReferences: ['CTN 1'] }] })] },
  ],
};

const parser = new XMLParser({ removeNSPrefix: true, parseTagValue: false, isArray: (name) => ['Shipment', 'Package', 'shipReferences'].includes(name) });
type Node = Record<string, unknown>;
const requestOf = (xml: string) => ((parser.parse(xml) as { Envelope: { Body: Node } }).Envelope.Body['SendAdvanceShipmentNotificationRequest'] as Node);

describe('the pushed SendAdvanceShipmentNotificationRequest', () => {
  it('holds every shipment with a package of the purchase order, in sales-order then location order, and validates', async () => {
    const told: string[] = [];
    const xml = advanceShipmentNotificationRequest(PO, { id: 'ossn-supplier', password: 'p<&>"w', customerIdentifier: 'CUST-9' }, (f) => told.push(f))?.toString('utf8') ?? '';
    expect(await validateSoapAnswer('osn-2.1.0', xml)).toEqual([]);
    const request = requestOf(xml);
    expect([request['wsVersion'], request['id'], request['password'], request['customerIdentifier']]).toEqual(['2.1.0', 'ossn-supplier', 'p<&>"w', 'CUST-9']);
    const notification = request['AdvanceShipmentNotification'] as Node;
    expect(notification['purchaseOrderNumber']).toBe('PO-7');
    expect(notification['purchaseOrderShippedInFull']).toBe('false');
    const shipments = (notification['ShipmentArray'] as { Shipment: Node[] }).Shipment;
    const trackings = shipments.map((s) => ((s['PackageArray'] as { Package: Node[] }).Package[0] as Node)['trackingNumber']);
    expect(trackings).toEqual(['T-1A', 'T-2A']);
    expect(xml).toContain('<weightUOM>kg</weightUOM><weight>2</weight>');
    expect(xml).toContain('<shipReferences>CTN 1</shipReferences>');
    expect(told).toEqual(['weight']);
  });

  it('leaves out the password and customerIdentifier the subscription has none of', async () => {
    const xml = advanceShipmentNotificationRequest(PO, { id: 'ossn-supplier' }, () => undefined)?.toString('utf8') ?? '';
    expect(await validateSoapAnswer('osn-2.1.0', xml)).toEqual([]);
    expect(xml).not.toContain('password');
    expect(xml).not.toContain('customerIdentifier');
  });

  it('is none for a purchase order without a package to show: ShipmentArray needs a shipment', () => {
    const empty: ShipmentNotificationV2View = { ...PO, salesOrders: [{ salesOrderNumber: 'SO-1', complete: false, shipments: [location(1, 'T', { packages: [] })] }] };
    expect(advanceShipmentNotificationRequest(empty, { id: 'x' }, () => undefined)).toBeUndefined();
  });
});
