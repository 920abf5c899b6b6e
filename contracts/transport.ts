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

/**
 * Why a message's key breaks the rule above, if it does: an event under another key may sit in
 * another partition than the rest of its sales order and overtake them.
 */
export function keyProblem(key: string | undefined, event: { clientId: string; salesOrderNumber: string }): string | undefined {
  const expected = eventKey(event.clientId, event.salesOrderNumber);
  if (key === expected) return undefined;
  return `message key ${key === undefined ? 'missing' : JSON.stringify(key)}: must be ${JSON.stringify(expected)} (clientId:salesOrderNumber), so that the events of one sales order stay in order`;
}
