// Renders the same 5,000-purchase-order SOAP answers with xmlbuilder2 and with fast-xml-parser's
// XMLBuilder, side by side in one run, and prints the figures. The faster one renders answers in
// production (services/query/soap/xml-tree.ts). Run: npx tsx bench/soap-builders.ts
import { performance } from 'node:perf_hooks';
import { create } from 'xmlbuilder2';
import { orderStatusDetailsPayload } from '../services/query/soap/build-order-status.js';
import { shipmentNotificationPayload } from '../services/query/soap/build-shipment-notification.js';
import { envelopeTree } from '../services/query/soap/envelope.js';
import { renderXml, type XmlNode } from '../services/query/soap/xml-tree.js';
import type { Address, OrderStatusView, ShipmentNotificationView } from '../services/query/views.js';

const ORDERS = 5_000;
const RUNS = 7;

const at = (i: number) => new Date(Date.UTC(2025, 0, 1) + i * 60_000);

function statuses(): OrderStatusView[] {
  return Array.from({ length: ORDERS }, (_, i) => ({
    purchaseOrderNumber: `PO-${100000 + i}`,
    details: [0, 1].map((d) => ({
      factoryOrderNumber: `SO-${200000 + i * 2 + d}`,
      statusID: d === 0 ? 60 : 20,
      statusName: d === 0 ? 'In Production' : 'Order Confirmed',
      expectedShipDate: at(i),
      expectedDeliveryDate: at(i + 5),
      responseRequired: false,
      validTimestamp: at(i - 1),
    })),
  }));
}

const address = (i: number): Address => ({
  address1: `${i} Main Street & Co`,
  address2: 'Suite 4',
  city: 'Springfield',
  region: 'IL',
  postalCode: '62701',
  country: 'US',
});

function notifications(): ShipmentNotificationView[] {
  return Array.from({ length: ORDERS }, (_, i) => ({
    purchaseOrderNumber: `PO-${100000 + i}`,
    complete: i % 2 === 0,
    salesOrders: [
      {
        salesOrderNumber: `SO-${200000 + i}`,
        complete: true,
        locations: [
          {
            id: 1,
            complete: true,
            shipFromAddress: address(i),
            shipToAddress: address(i + 1),
            shipmentDestinationType: 'Commercial' as const,
            packages: [1, 2].map((p) => ({
              id: p,
              trackingNumber: `1Z${i}${p}`,
              shipmentDate: at(i),
              dimUOM: 'Inches' as const,
              length: 12,
              width: 10.5,
              height: 4,
              weightUOM: 'Pounds' as const,
              weight: 3.25,
              carrier: 'UPS',
              shipmentMethod: 'Ground',
              items: [
                { supplierProductId: 'P100', supplierPartId: 'P100-RED', purchaseOrderLineNumber: '1', quantity: 24 },
                { supplierProductId: 'P200', supplierPartId: 'P200-BLU', purchaseOrderLineNumber: '2', quantity: 12 },
              ],
            })),
          },
        ],
      },
    ],
  }));
}

const renderers: Record<string, (tree: XmlNode) => string> = {
  'fast-xml-parser XMLBuilder': renderXml,
  xmlbuilder2: (tree) => create({ version: '1.0', encoding: 'utf-8' }, tree).end(),
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

function bench(label: string, shape: () => XmlNode): void {
  console.log(`\n${label} (${ORDERS} purchase orders, median of ${RUNS} runs after 2 warm-ups; payload shaping included)`);
  const outputs: string[] = [];
  for (const [name, render] of Object.entries(renderers)) {
    const times: number[] = [];
    let out = '';
    for (let run = 0; run < RUNS + 2; run++) {
      const start = performance.now();
      out = render(envelopeTree(shape()));
      if (run >= 2) times.push(performance.now() - start);
    }
    outputs.push(out);
    console.log(`  ${name.padEnd(28)} ${median(times).toFixed(1).padStart(8)} ms   ${(Buffer.byteLength(out) / 1024 / 1024).toFixed(2)} MiB`);
  }
  console.log(`  same bytes from both: ${outputs.every((o) => o === outputs[0]) ? 'yes' : 'no'}`);
}

const statusData = statuses();
const shipmentData = notifications();
bench('GetOrderStatusDetailsResponse', () => orderStatusDetailsPayload(statusData));
bench('GetOrderShipmentNotificationResponse', () => shipmentNotificationPayload(shipmentData));
