import { describe, expect, it } from 'vitest';
import { isContractDateTime, isRfc3339DateTime, isUuid } from './formats.js';

describe('date-time format', () => {
  it.each([
    '2025-05-01T10:00:00Z',
    '2025-05-01T10:00:00.123Z',
    '2025-05-01T10:00:00.123456+05:30',
    '2025-05-01T05:00:00-05:00',
    '2024-02-29T23:59:59Z',
    '2025-05-01t10:00:00z',
  ])('accepts %s', (value) => expect(isRfc3339DateTime(value)).toBe(true));

  it.each([
    ['no offset', '2025-05-01T10:00:00'],
    ['a date only', '2025-05-01'],
    ['a space for T', '2025-05-01 10:00:00Z'],
    ['February 30', '2025-02-30T10:00:00Z'],
    ['February 29 of a common year', '2025-02-29T10:00:00Z'],
    ['month 13', '2025-13-01T10:00:00Z'],
    ['hour 24', '2025-05-01T24:00:00Z'],
    ['a leap second', '2025-06-30T23:59:60Z'],
    ['offset without colon', '2025-05-01T10:00:00+0500'],
    ['offset hour 24', '2025-05-01T10:00:00+24:00'],
    ['trailing text', '2025-05-01T10:00:00Z tomorrow'],
  ])('refuses %s', (_, value) => expect(isRfc3339DateTime(value)).toBe(false));
});

// xsd:dateTime has no year 0000 and the answers write UTC with four-digit years.
describe('years the answers can write', () => {
  it.each([
    '0001-01-01T00:00:00Z',
    '9999-12-31T23:59:59.999Z',
    '0000-12-31T23:00:00-01:00',
    '9999-12-31T23:59:59+23:59',
    '0099-05-01T10:00:00Z',
    '0002-01-01T00:00:00+23:59',
    '9998-12-31T23:59:59-23:59',
  ])('accepts %s, in the years 0001 to 9999 in UTC', (value) => {
    expect(isContractDateTime(value)).toBe(true);
  });

  it.each([
    '0000-01-01T00:00:00Z',
    '0000-12-31T23:59:59.999Z',
    '0001-01-01T00:00:00+00:01',
    '9999-12-31T23:59:59-00:01',
    '9999-12-31T12:00:00-23:59',
  ])('refuses %s, outside them once in UTC', (value) => {
    expect(isRfc3339DateTime(value)).toBe(true); // a date-time, refused only for its year
    expect(isContractDateTime(value)).toBe(false);
  });
});

describe('uuid format', () => {
  it('accepts UUIDs in either case', () => {
    expect(isUuid('3f1c2b9e-8d2a-4c5e-9b1a-7e6f5d4c3b2a')).toBe(true);
    expect(isUuid('3F1C2B9E-8D2A-4C5E-9B1A-7E6F5D4C3B2A')).toBe(true);
  });

  it('refuses anything else', () => {
    expect(isUuid('3f1c2b9e8d2a4c5e9b1a7e6f5d4c3b2a')).toBe(false);
    expect(isUuid('3f1c2b9e-8d2a-4c5e-9b1a-7e6f5d4c3b2g')).toBe(false);
    expect(isUuid('')).toBe(false);
  });
});
