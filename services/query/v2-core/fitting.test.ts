import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { AddressV2View } from '../../../contracts/lookup-answers-v2.js';
import { ALPHA3_OF_XSD_CODES, XSD_COUNTRY_CODES, fitContact, fitCountry, fitFractionDigits, fitShippingAddress, fitText } from './fitting.js';

/** A degraded callback that records the fields it is told. */
function recorder(): { fields: string[]; degraded: (field: string) => void } {
  const fields: string[] = [];
  return { fields, degraded: (field) => fields.push(field) };
}

const address = (over: Partial<AddressV2View> = {}): AddressV2View => ({ address1: '1 Main St', city: 'Springfield', region: 'IL', postalCode: '62701', ...over });

async function enumeration(folder: string): Promise<string[]> {
  const xsd = await readFile(new URL(`../../../wsdl/${folder}/iso3166-country-code.xsd`, import.meta.url), 'utf8');
  return [...xsd.matchAll(/<xsd:enumeration value="([^"]*)"\s*\/>/g)].map((m) => m[1] as string);
}

describe('the country code list', () => {
  it("equals the enumeration of the 2.0.0 and 2.1.0 folders' iso3166-country-code.xsd, in order", async () => {
    expect(XSD_COUNTRY_CODES).toEqual(await enumeration('osn-2.0.0'));
    expect(XSD_COUNTRY_CODES).toEqual(await enumeration('osn-2.1.0'));
    expect(XSD_COUNTRY_CODES).toEqual(await enumeration('oss-2.0.0'));
    expect(XSD_COUNTRY_CODES).toHaveLength(243);
  });

  it('has one distinct alpha-3 code per listed country', () => {
    expect(ALPHA3_OF_XSD_CODES).toHaveLength(XSD_COUNTRY_CODES.length);
    expect(new Set(ALPHA3_OF_XSD_CODES).size).toBe(ALPHA3_OF_XSD_CODES.length);
    for (const code of ALPHA3_OF_XSD_CODES) expect(code).toMatch(/^[A-Z]{3}$/);
  });
});

describe('fitText', () => {
  it('collapses white space and reads a blank value as absent, telling nobody', () => {
    const { fields, degraded } = recorder();
    expect(fitText('  Suite\t\n 5  ', 35, 'address2', degraded)).toBe('Suite 5');
    expect(fitText(' \t\u00a0\n', 35, 'address2', degraded)).toBeUndefined();
    expect(fitText('', 35, 'address2', degraded)).toBeUndefined();
    expect(fitText(undefined, 35, 'address2', degraded)).toBeUndefined();
    expect(fields).toEqual([]);
  });

  it('cuts at max code points, not UTF-16 units, and tells the field once', () => {
    const { fields, degraded } = recorder();
    const exactly35 = 'a'.repeat(33) + '😀😀';
    expect(fitText(exactly35, 35, 'address1', degraded)).toBe(exactly35);
    expect(fields).toEqual([]);
    expect(fitText('a'.repeat(34) + '😀😀', 35, 'address1', degraded)).toBe('a'.repeat(34) + '😀');
    expect(fields).toEqual(['address1']);
  });

  it('collapses before it cuts: spaces that collapse away never cause a cut', () => {
    const { fields, degraded } = recorder();
    const spaced = 'Unit 12' + ' '.repeat(30) + 'Building B';
    expect(fitText(spaced, 35, 'address2', degraded)).toBe('Unit 12 Building B');
    expect(fields).toEqual([]);
  });

  it('does not end a cut value with the space between two words', () => {
    const { fields, degraded } = recorder();
    expect(fitText('abcd efgh', 5, 'city', degraded)).toBe('abcd');
    expect(fields).toEqual(['city']);
  });
});

describe('fitFractionDigits (4, as 2.1.0 allows)', () => {
  it.each([
    // As written: nothing to round, nothing counted.
    [12, 12, false],
    [1.5, 1.5, false],
    [1.2345, 1.2345, false],
    [-0.0001, -0.0001, false],
    // Half to even at the last digit kept, on the written digits.
    [1.23456, 1.2346, true],
    [1.23454, 1.2345, true],
    [0.00125, 0.0012, true],
    [0.00135, 0.0014, true],
    [0.001251, 0.0013, true],
    [2.00005, 2, true],
    [9.99995, 10, true],
    [-9.99995, -10, true],
    [-1.23455, -1.2346, true],
    [0.00004, 0, true],
    [1e-7, 0, true],
    [123456789.123456, 123456789.1235, true],
  ])('%d is %d', (value, fitted, counted) => {
    const told: string[] = [];
    expect(fitFractionDigits(value, 4, 'weight', (field) => told.push(field))).toBe(fitted);
    expect(told).toEqual(counted ? ['weight'] : []);
  });
});

describe('fitCountry', () => {
  const fit = (value: string | undefined) => {
    const { fields, degraded } = recorder();
    return { value: fitCountry(value, 'country', degraded), fields };
  };

  it('keeps a listed code, trimmed and upper-cased, without counting it', () => {
    expect(fit(' us ')).toEqual({ value: 'US', fields: [] });
    expect(fit('De')).toEqual({ value: 'DE', fields: [] });
    // The 2006 list still has Serbia and Montenegro and the Netherlands Antilles.
    expect(fit('CS')).toEqual({ value: 'CS', fields: [] });
    expect(fit('AN')).toEqual({ value: 'AN', fields: [] });
  });

  it('replaces UK by GB and an alpha-3 code by its alpha-2 code, counting each', () => {
    expect(fit('UK')).toEqual({ value: 'GB', fields: ['country'] });
    expect(fit('uk')).toEqual({ value: 'GB', fields: ['country'] });
    expect(fit('USA')).toEqual({ value: 'US', fields: ['country'] });
    expect(fit(' gbr ')).toEqual({ value: 'GB', fields: ['country'] });
    expect(fit('DEU')).toEqual({ value: 'DE', fields: ['country'] });
    expect(fit('CAN')).toEqual({ value: 'CA', fields: ['country'] });
  });

  it('leaves out what the list cannot hold: RS, its alpha-3 code, names, unknown codes', () => {
    expect(fit('RS')).toEqual({ value: undefined, fields: ['country'] });
    expect(fit('SRB')).toEqual({ value: undefined, fields: ['country'] });
    expect(fit('ME')).toEqual({ value: undefined, fields: ['country'] });
    expect(fit('Germany')).toEqual({ value: undefined, fields: ['country'] });
    expect(fit('United States')).toEqual({ value: undefined, fields: ['country'] });
    expect(fit('XX')).toEqual({ value: undefined, fields: ['country'] });
  });

  it('reads a blank country as absent without counting it', () => {
    expect(fit('  ')).toEqual({ value: undefined, fields: [] });
    expect(fit(undefined)).toEqual({ value: undefined, fields: [] });
  });
});

describe('fitShippingAddress', () => {
  it('keeps a fitting address as it is, absent parts undefined and so never written', () => {
    const { fields, degraded } = recorder();
    const fitted = fitShippingAddress(address({ country: 'US', address2: ' ', email: 'a@b.c' }), degraded);
    expect(fitted).toEqual({ address1: '1 Main St', city: 'Springfield', region: 'IL', postalCode: '62701', country: 'US', email: 'a@b.c' });
    expect(fitted.address2).toBeUndefined();
    expect(JSON.stringify(fitted)).toBe('{"address1":"1 Main St","city":"Springfield","region":"IL","postalCode":"62701","country":"US","email":"a@b.c"}');
    expect(fields).toEqual([]);
  });

  it('cuts address lines at 35 and the city at 30', () => {
    const { fields, degraded } = recorder();
    const fitted = fitShippingAddress(address({ address1: 'x'.repeat(64), address2: 'y'.repeat(36), city: 'c'.repeat(64) }), degraded);
    expect(fitted.address1).toBe('x'.repeat(35));
    expect(fitted.address2).toBe('y'.repeat(35));
    expect(fitted.city).toBe('c'.repeat(30));
    expect(fields).toEqual(['address1', 'address2', 'city']);
  });

  it("appends v1's address4 to address3 with ', ' before cutting", () => {
    const run = (over: Partial<AddressV2View>) => {
      const { fields, degraded } = recorder();
      return { address3: fitShippingAddress(address(over), degraded).address3, fields };
    };
    expect(run({ address3: 'Suite 5', address4: 'Floor 2' })).toEqual({ address3: 'Suite 5, Floor 2', fields: [] });
    expect(run({ address4: 'Floor 2' })).toEqual({ address3: 'Floor 2', fields: [] });
    expect(run({ address3: ' ', address4: ' Floor  2 ' })).toEqual({ address3: 'Floor 2', fields: [] });
    expect(run({ address3: 'Suite 5', address4: '  ' })).toEqual({ address3: 'Suite 5', fields: [] });
    expect(run({ address3: 'Building 12, Industrial Park', address4: 'Gate 7 North' })).toEqual({
      address3: 'Building 12, Industrial Park, Gate',
      fields: ['address3'],
    });
  });

  it('takes regionV2 before the v1 region, cut at 3', () => {
    const run = (over: Partial<AddressV2View>) => {
      const { fields, degraded } = recorder();
      return { region: fitShippingAddress(address(over), degraded).region, fields };
    };
    expect(run({ region: 'IL', regionV2: 'NSW' })).toEqual({ region: 'NSW', fields: [] });
    expect(run({ region: 'IL', regionV2: ' ' })).toEqual({ region: 'IL', fields: [] });
    expect(run({ region: 'IL', regionV2: 'Bavaria' })).toEqual({ region: 'Bav', fields: ['region'] });
    expect(run({ region: 'Ontario' })).toEqual({ region: 'Ont', fields: ['region'] });
  });

  it('cuts attentionTo and companyName at 35, postalCode at 10, email at 128, phone at 32', () => {
    const { fields, degraded } = recorder();
    const fitted = fitShippingAddress(
      address({ attentionTo: 'a'.repeat(40), companyName: 'b'.repeat(40), postalCode: '1234567890-12', email: 'e'.repeat(130), phone: '9'.repeat(33) }),
      degraded,
    );
    expect(fitted).toMatchObject({ attentionTo: 'a'.repeat(35), companyName: 'b'.repeat(35), postalCode: '1234567890', email: 'e'.repeat(128), phone: '9'.repeat(32) });
    expect(fields).toEqual(['attentionTo', 'companyName', 'postalCode', 'email', 'phone']);
  });

  it('writes a blank required part as "-" (the element must be there) and counts it', () => {
    const { fields, degraded } = recorder();
    const fitted = fitShippingAddress(address({ address1: ' ', city: '', region: '\t', postalCode: ' ' }), degraded);
    expect(fitted).toMatchObject({ address1: '-', city: '-', region: '-', postalCode: '-' });
    expect(fields).toEqual(['address1', 'city', 'region', 'postalCode']);
  });

  it('fits the country as fitCountry does', () => {
    const { fields, degraded } = recorder();
    expect(fitShippingAddress(address({ country: 'usa' }), degraded).country).toBe('US');
    expect(fitShippingAddress(address({ country: 'RS' }), degraded).country).toBeUndefined();
    expect(fields).toEqual(['country', 'country']);
  });
});

describe('fitContact', () => {
  it('fits every contact field to SharedObjectsOrderStatusV2.xsd and drops blank ones', () => {
    const { fields, degraded } = recorder();
    const fitted = fitContact(
      {
        contactType: 'Bill',
        accountName: 'n'.repeat(70),
        accountNumber: ' 42 ',
        attentionTo: 'a'.repeat(36),
        companyName: '  ',
        address1: 'x'.repeat(36),
        address2: 'Suite   5',
        city: 'c'.repeat(31),
        region: 'Bavaria',
        postalCode: '12345678901',
        country: 'DEU',
        email: 'e'.repeat(129),
        phone: '1'.repeat(33),
        comments: 'Leave at the\nback door',
      },
      degraded,
    );
    expect(fitted).toEqual({
      contactType: 'Bill',
      accountName: 'n'.repeat(64),
      accountNumber: '42',
      attentionTo: 'a'.repeat(35),
      address1: 'x'.repeat(35),
      address2: 'Suite 5',
      city: 'c'.repeat(30),
      region: 'Bav',
      postalCode: '1234567890',
      country: 'DE',
      email: 'e'.repeat(128),
      phone: '1'.repeat(32),
      comments: 'Leave at the\nback door',
    });
    expect(fields).toEqual(['accountName', 'attentionTo', 'address1', 'city', 'region', 'postalCode', 'country', 'email', 'phone']);
  });

  it('leaves out blank comments and an unknown country, keeping the contact', () => {
    const { fields, degraded } = recorder();
    expect(fitContact({ contactType: 'Order', comments: ' \n ', country: 'Atlantis' }, degraded)).toEqual({ contactType: 'Order' });
    expect(fields).toEqual(['country']);
  });
});
