// Where the events travel (erp-events.md, Transport). The topic is configurable; these are the rules.

export const defaultTopic = 'erp.order-events.v1';
export const deadLetterSuffix = '.dlq';

export function deadLetterTopic(topic: string): string {
  return `${topic}${deadLetterSuffix}`;
}

/** Every event of one sales order shares this key, so they land in one partition, in order. */
export function eventKey(clientId: string, salesOrderNumber: string): string {
  return `${clientId}:${salesOrderNumber}`;
}
