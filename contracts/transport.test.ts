import { describe, expect, it } from 'vitest';
import { deadLetterTopic, defaultTopic, eventKey, keyProblem } from './transport.js';

describe('transport rules', () => {
  it('keys a message by client and sales order', () => {
    expect(eventKey('CLIENT-001', 'SO-100234')).toBe('CLIENT-001:SO-100234');
  });

  it('says why a message key does not fit its event', () => {
    const event = { clientId: 'CLIENT-001', salesOrderNumber: 'SO-1' };
    expect(keyProblem('CLIENT-001:SO-1', event)).toBeUndefined();
    expect(keyProblem('CLIENT-001:SO-2', event)).toBe(
      'message key "CLIENT-001:SO-2": must be "CLIENT-001:SO-1" (clientId:salesOrderNumber), so that the events of one sales order stay in order',
    );
    expect(keyProblem(undefined, event)).toMatch(/^message key missing: must be "CLIENT-001:SO-1"/);
  });

  it('names the default topic and its dead-letter topic', () => {
    expect(defaultTopic).toBe('erp.order-events.v1');
    expect(deadLetterTopic(defaultTopic)).toBe('erp.order-events.v1.dlq');
    expect(deadLetterTopic('custom')).toBe('custom.dlq');
  });
});
