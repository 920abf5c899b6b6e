// 2.0.0 views (contracts/lookup-answers-v2.ts) for protocol tests: one with every optional part
// (contacts, product lines, issues), one with none, and the shipment notifications' smallest.
import type { IssueView, OrderStatusDetailV2View, OrderStatusV2View, ShipmentNotificationV2View } from '../../contracts/lookup-answers-v2.js';

export const OPEN_ISSUE: IssueView = {
  issueId: 'ISS-1',
  issueStatus: 'Open',
  issueCategory: 'artHold',
  issueName: 'Art approval',
  urgentResponseRequired: true,
  issueDescription: 'Logo <too> small & blurry',
  responseRequiredBy: new Date('2025-03-04T05:06:07Z'),
  issueResolutionURL: 'https://supplier.example.com/issues/ISS-1',
  productId: 'P-100',
  partId: 'P-100-RED',
};

export const CLOSED_ISSUE: IssueView = { issueId: 'ossn-hold-0123456789abcdef0123', issueStatus: 'Closed', issueCategory: 'creditHold', urgentResponseRequired: false };

/** A sales order with every 2.0.0 part. */
export const FULL_DETAIL: OrderStatusDetailV2View = {
  salesOrderNumber: 'SO-FULL',
  status: 'inProduction',
  issueCategory: 'artHold',
  expectedShipDate: '2025-03-10',
  expectedDeliveryDate: '2025-03-14',
  additionalExplanation: 'Waiting for art',
  qualityProofURL: 'https://supplier.example.com/proof/1',
  contacts: [
    {
      contactType: 'Order',
      accountName: 'Acme',
      accountNumber: 'A-1',
      attentionTo: 'Jo',
      companyName: 'Acme Inc',
      address1: '1 Main St',
      address2: 'Suite 2',
      address3: 'Floor 3',
      city: 'Springfield',
      region: 'IL',
      postalCode: '62701',
      country: 'US',
      email: 'jo@acme.example',
      phone: '+1 555 0100',
      comments: 'Call first',
    },
    { contactType: 'Bill' },
  ],
  products: [
    {
      productId: 'P-100',
      partId: 'P-100-RED',
      salesOrderLineNumber: '1',
      purchaseOrderLineNumber: '10',
      quantityOrdered: { value: 250, uom: 'EA' },
      quantityShipped: { value: 0.5, uom: 'DZ' },
      issueCategory: 'artHold',
      status: 'inProduction',
    },
    { productId: 'P-200', salesOrderLineNumber: '2', quantityOrdered: { value: 1e-7, uom: 'BX' }, status: 'received' },
  ],
  issues: [OPEN_ISSUE, CLOSED_ISSUE],
  validTimestamp: new Date('2025-03-01T12:00:00.250Z'),
};

/** A sales order with nothing optional. */
export const BARE_DETAIL: OrderStatusDetailV2View = { salesOrderNumber: 'SO-BARE', status: 'received', contacts: [], issues: [], validTimestamp: new Date('2025-01-01T00:00:00Z') };

export const FULL_ORDER: OrderStatusV2View = { purchaseOrderNumber: 'PO-FULL', details: [FULL_DETAIL, BARE_DETAIL] };
export const BARE_ORDER: OrderStatusV2View = { purchaseOrderNumber: 'PO-BARE', details: [{ ...BARE_DETAIL, salesOrderNumber: 'SO-BARE-2' }] };

/** A shipment notification with one package at one location (what OSN 2.0.0 needs at least). */
export const SHIPMENT: ShipmentNotificationV2View = {
  purchaseOrderNumber: 'PO-FULL',
  complete: false,
  salesOrders: [
    {
      salesOrderNumber: 'SO-FULL',
      complete: false,
      shipments: [
        {
          id: 1,
          complete: true,
          shipFromAddress: { address1: '1 Dock Rd', city: 'Dallas', region: 'TX', postalCode: '75201', country: 'US' },
          shipToAddress: { address1: '1 Main St', city: 'Springfield', region: 'IL', postalCode: '62701', country: 'US' },
          packages: [{ id: 1, trackingNumber: '1Z999', shipmentDate: new Date('2025-03-02T10:00:00Z'), carrier: 'UPS', shipmentMethod: 'Ground', items: [{ supplierProductId: 'P-100', quantity: 250 }] }],
        },
      ],
    },
  ],
};
