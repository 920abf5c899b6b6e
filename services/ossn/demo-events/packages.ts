import type { PackageItem, PackageShipped } from '../../../contracts/erp-event-schema.js';
import type { Random } from './random.js';

type PackageData = PackageShipped['data'];

interface Carrier {
  name: string;
  methods: readonly string[];
  trackingNumber(random: Random): string;
}

// Tracking numbers shaped like each carrier's (UPS 1Z…, FedEx 12 digits, USPS 22 digits).
const carriers: readonly Carrier[] = [
  { name: 'UPS', methods: ['Ground', '2nd Day Air', 'Next Day Air'], trackingNumber: (r) => `1Z${r.alphanumeric(6)}${r.digits(10)}` },
  { name: 'FedEx', methods: ['Ground', 'Express Saver', 'Priority Overnight'], trackingNumber: (r) => r.digits(12) },
  { name: 'USPS', methods: ['Priority Mail', 'Ground Advantage'], trackingNumber: (r) => `9400${r.digits(18)}` },
];

const products = [
  { id: 'PC61', parts: ['PC61-NAVY-L', 'PC61-BLK-XL', 'PC61-WHT-M'] },
  { id: 'MUG-11OZ', parts: ['MUG-11OZ-WHT', 'MUG-11OZ-RED'] },
  { id: 'TOTE-CNV', parts: ['TOTE-CNV-NAT', 'TOTE-CNV-BLK'] },
  { id: 'CAP-112', parts: ['CAP-112-CHAR', 'CAP-112-NVY'] },
  { id: 'PEN-WS', parts: ['PEN-WS-BLU', 'PEN-WS-BLK'] },
] as const;

function items(random: Random): PackageItem[] {
  return Array.from({ length: random.int(1, 3) }, (_, i) => {
    const product = random.pick(products);
    return {
      supplierProductId: product.id,
      supplierPartId: random.pick(product.parts),
      ...(random.chance(0.5) && { distributorProductId: `D-${random.digits(5)}` }),
      purchaseOrderLineNumber: String(i + 1),
      quantity: random.int(1, 12) * 12,
    };
  });
}

/**
 * A package as a supplier's shipping system records it; some without dimensions or items. Drawn
 * now, dated later (when the plan is placed on the calendar).
 */
export function randomPackage(random: Random, ids: { locationId: number; packageId: number }): (shipmentDate: string) => PackageData {
  const carrier = random.pick(carriers);
  const terms = random.pick(['Prepaid', 'Prepaid', 'Third Party', 'Collect']);
  const trackingNumber = carrier.trackingNumber(random);
  const rest = {
    carrier: carrier.name,
    shipmentMethod: random.pick(carrier.methods),
    ...(terms !== 'Prepaid' && { shippingAccount: random.alphanumeric(6) }),
    shipmentTerms: terms,
    ...(random.chance(0.8) && {
      dimUOM: 'Inches' as const,
      length: random.int(8, 24),
      width: random.int(6, 18),
      height: random.int(4, 16),
      weightUOM: 'Pounds' as const,
      weight: random.int(10, 400) / 10,
    }),
    ...(random.chance(0.85) && { items: items(random) }),
  };
  return (shipmentDate) => ({ ...ids, trackingNumber, shipmentDate, ...rest });
}
