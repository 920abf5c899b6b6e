import { describe, expect, it } from 'vitest';
import { deadLetterTopic, defaultTopic, eventKey } from './transport.js';

describe('transport rules', () => {
  it('keys a message by client and sales order', () => {
    expect(eventKey('CLIENT-001', 'SO-100234')).toBe('CLIENT-001:SO-100234');
  });

  it('names the default topic and its dead-letter topic', () => {
    expect(defaultTopic).toBe('erp.order-events.v1');
    expect(deadLetterTopic(defaultTopic)).toBe('erp.order-events.v1.dlq');
    expect(deadLetterTopic('custom')).toBe('custom.dlq');
  });
});
