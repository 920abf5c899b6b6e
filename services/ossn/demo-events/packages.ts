import type { PackageItem, PackageShipped, ProductLine } from '../../../contracts/erp-event-schema.js';
import type { Random } from './random.js';

type PackageData = PackageShipped['data'];

interface Carrier {
  name: string;
  methods: readonly string[];
  /** The carrier's own names of its services (contract v2's carrierService). */
  services: readonly string[];
  trackingNumber(random: Random): string;
}

// Tracking numbers shaped like each carrier's (UPS 1Z…, FedEx 12 digits, USPS 22 digits).
const carriers: readonly Carrier[] = [
  {
    name: 'UPS',
    methods: ['Ground', '2nd Day Air', 'Next Day Air'],
    services: ['UPS Ground', 'UPS 2nd Day Air', 'UPS Next Day Air Saver'],
    trackingNumber: (r) => `1Z${r.alphanumeric(6)}${r.digits(10)}`,
  },
  { name: 'FedEx', methods: ['Ground', 'Express Saver', 'Priority Overnight'], services: ['FedEx Ground', 'FedEx Home Delivery'], trackingNumber: (r) => r.digits(12) },
  { name: 'USPS', methods: ['Priority Mail', 'Ground Advantage'], services: ['USPS Priority Mail'], trackingNumber: (r) => `9400${r.digits(18)}` },
];

/** 1–3 of the order's lines, or some of them packed in part; quantities in the line's unit, some without it (pieces). */
function items(random: Random, lines: readonly ProductLine[]): PackageItem[] {
  return random.shuffled(lines).slice(0, random.int(1, Math.min(3, lines.length))).map((line) => {
    const { value, uom } = line.quantityOrdered;
    return {
      supplierProductId: line.productId,
      ...(line.partId !== undefined && { supplierPartId: line.partId }),
      ...(random.chance(0.5) && { distributorProductId: `D-${random.digits(5)}` }),
      ...(line.purchaseOrderLineNumber !== undefined && { purchaseOrderLineNumber: line.purchaseOrderLineNumber }),
      quantity: Math.max(1, Math.round(value / random.int(1, 2))),
      // Pieces are the ERP's default: it often leaves the unit out.
      ...((uom !== 'EA' || random.chance(0.5)) && { uom }),
    };
  });
}

/**
 * A package as a supplier's shipping system records it; some without dimensions or items. Drawn
 * now, dated later (when the plan is placed on the calendar).
 */
export function randomPackage(
  random: Random,
  ids: { locationId: number; packageId: number },
  lines: readonly ProductLine[],
): (shipmentDate: string) => PackageData {
  const carrier = random.pick(carriers);
  const terms = random.pick(['Prepaid', 'Prepaid', 'Third Party', 'Collect']);
  const trackingNumber = carrier.trackingNumber(random);
  const rest = {
    carrier: carrier.name,
    shipmentMethod: random.pick(carrier.methods),
    ...(random.chance(0.6) && { carrierService: random.pick(carrier.services) }),
    ...(random.chance(0.5) && { preProductionProof: random.pick(['Yes', 'No', 'Unknown'] as const) }),
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
    ...(random.chance(0.85) && { items: items(random, lines) }),
  };
  return (shipmentDate) => ({ ...ids, trackingNumber, shipmentDate, ...rest });
}
