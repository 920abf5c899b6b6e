import type { Contact, ErpEventOf, ProductLine } from '../../../contracts/erp-event-schema.js';
import type { IssueCategory } from '../../../contracts/v2-vocabulary.js';
import { products } from './catalog.js';
import { companies, emailOf, people, randomPhone } from './people.js';
import { randomAddress } from './places.js';
import type { Random } from './random.js';

// Contract v2's order details as a supplier's ERP would record them: the product lines ordered
// (and later shipped), the distributor's contacts, and issues the ERP tracks beside holds.

type IssueData = ErpEventOf<'IssueRecorded'>['data'];

/** 1–4 lines of distinct parts, numbered 1, 2, …; most by the piece, some by the dozen. */
export function randomLines(random: Random): ProductLine[] {
  const parts = random.shuffled(products.flatMap((p) => p.parts.map((part) => ({ productId: p.id, partId: part }))));
  return parts.slice(0, random.int(1, 4)).map((part, i) => {
    const byDozen = random.chance(0.2);
    const dozens = random.int(1, 12);
    return {
      salesOrderLineNumber: String(i + 1),
      ...part,
      ...(random.chance(0.8) && { purchaseOrderLineNumber: String((i + 1) * 10) }),
      quantityOrdered: byDozen ? { value: dozens, uom: 'DZ' as const } : { value: dozens * 12, uom: 'EA' as const },
    };
  });
}

/** The lines once shipping began: each shipped in full, or (partly) the first half of them. */
export function shippedLines(lines: readonly ProductLine[], inFull: boolean): ProductLine[] {
  return lines.map((line, i) => {
    const shipped = inFull || i < Math.ceil(lines.length / 2);
    return {
      ...line,
      quantityShipped: shipped ? line.quantityOrdered : { value: 0, uom: line.quantityOrdered.uom },
      status: shipped ? (inFull ? 'complete' : 'shipped') : 'inProduction',
    };
  });
}

/** 1–3 of the distributor's contacts for the order, the order contact first. */
export function randomContacts(random: Random): Contact[] {
  const company = random.pick(companies);
  const types = ['Order', ...random.shuffled(['Expeditor', 'Bill', 'Art'] as const).slice(0, random.int(0, 2))] as const;
  return types.map((contactType) => {
    const name = random.pick(people);
    const { address1, address2, city, region, postalCode } = randomAddress(random);
    return {
      contactType,
      accountName: company,
      accountNumber: `ACCT-${random.digits(5)}`,
      attentionTo: name,
      companyName: company,
      ...(contactType === 'Bill' && { address1, ...(address2 && { address2 }), city, region, postalCode, country: 'US' }),
      email: emailOf(name, company),
      phone: randomPhone(random),
      ...(random.chance(0.3) && { comments: 'Please email before calling' }),
    };
  });
}

const issueKinds: readonly { category: IssueCategory; name: string; description: string }[] = [
  { category: 'artHold', name: 'Artwork resolution', description: 'The logo file is 72 dpi; please send a vector file (AI, EPS or PDF).' },
  { category: 'proofHold', name: 'Proof approval', description: 'The virtual proof waits for your approval before production.' },
  { category: 'backOrderHold', name: 'Part back-ordered', description: 'One part is back-ordered at the mill; the rest ships as planned.' },
  { category: 'shippingHold', name: 'Ship-to address', description: 'The carrier could not validate the ship-to address.' },
  { category: 'customerSuppliedItemHold', name: 'Supplied inserts', description: 'The inserts you are sending have not arrived yet.' },
  { category: 'creditHold', name: 'Credit review', description: 'The order exceeds the account credit line.' },
];

/** An issue as the ERP first records it, Open; its later states keep its id and category. */
export function randomIssue(random: Random, lines: readonly ProductLine[]): IssueData {
  const kind = random.pick(issueKinds);
  const line = random.pick(lines);
  return {
    issueId: `ISS-${random.digits(7)}`,
    issueStatus: 'Open',
    issueCategory: kind.category,
    issueName: kind.name,
    urgentResponseRequired: random.chance(0.5),
    issueDescription: kind.description,
    issueResolutionURL: `https://portal.supplier.example/issues/${random.alphanumeric(8)}`,
    ...(kind.category === 'backOrderHold' && line.partId !== undefined && { productId: line.productId, partId: line.partId }),
  };
}
