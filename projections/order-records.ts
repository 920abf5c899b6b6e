import { eventKey, type Contact, type ErpEventOf, type ProductLine } from '../contracts/erp-events.js';
import type { Quantity } from '../contracts/lookup-answers-v2.js';
import { compact } from './compact.js';
import { EventRejectedError } from './event-rejected.js';
import type { ContactState, ProductLineState } from './state.js';

// Contract v2's product lines and contacts copied into state records field by field: the state
// never shares objects with the event, and carries no property beyond those of its type.

const toQuantity = (q: Quantity): Quantity => ({ value: q.value, uom: q.uom });

function toLine(l: ProductLine): ProductLineState {
  return compact({
    salesOrderLineNumber: l.salesOrderLineNumber,
    productId: l.productId,
    partId: l.partId,
    purchaseOrderLineNumber: l.purchaseOrderLineNumber,
    quantityOrdered: toQuantity(l.quantityOrdered),
    quantityShipped: l.quantityShipped && toQuantity(l.quantityShipped),
    status: l.status,
    issueCategory: l.issueCategory,
  });
}

/** The event's lines in its order. Throws EventRejectedError when two share a salesOrderLineNumber. */
export function toLines(event: ErpEventOf<'SalesOrderLinesRecorded'>): ProductLineState[] {
  const seen = new Set<string>();
  for (const { salesOrderLineNumber } of event.data.lines) {
    if (seen.has(salesOrderLineNumber)) {
      throw new EventRejectedError(
        `salesOrderLineNumber ${JSON.stringify(salesOrderLineNumber)} given twice in the lines of sales order ${eventKey(event.clientId, event.salesOrderNumber)}`,
      );
    }
    seen.add(salesOrderLineNumber);
  }
  return event.data.lines.map(toLine);
}

function toContact(c: Contact): ContactState {
  return compact({
    contactType: c.contactType,
    accountName: c.accountName,
    accountNumber: c.accountNumber,
    attentionTo: c.attentionTo,
    companyName: c.companyName,
    address1: c.address1,
    address2: c.address2,
    address3: c.address3,
    city: c.city,
    region: c.region,
    postalCode: c.postalCode,
    country: c.country,
    email: c.email,
    phone: c.phone,
    comments: c.comments,
  });
}

/** The event's contacts in its order. */
export const toContacts = (event: ErpEventOf<'OrderContactsRecorded'>): ContactState[] => event.data.contacts.map(toContact);
