// Fits stored values to the PromoStandards 2.0.0 and 2.1.0 XSDs (oss-osn-2.0.0.md §4.4), so that every
// 2.x answer validates whatever the read model holds: whitespace collapsed, blank read as absent,
// values cut to the XSD's length, countries to its code list. Each cut, replacement or omission is
// told to `degraded` (counted in ossn_query_v2_degraded_total{field}); collapsing alone is not.
import type { AddressV2View, ContactView } from '../../../contracts/lookup-answers-v2.js';
import { formatDecimal } from '../protocol/soap/xml-text.js';

/** Told each time a value is cut, replaced or left out so the answer stays valid; counted in ossn_query_v2_degraded_total{field}. */
export type Degraded = (field: string) => void;

/**
 * The country codes iso3166-country-code.xsd lists (CodeSynthesis' 2006 list, as the OSS and OSN
 * 2.0.0 folders ship it), in its order; fitting.test.ts proves it equals the file's enumeration.
 */
export const XSD_COUNTRY_CODES: readonly string[] = (
  'AF AX AL DZ AS AD AO AI AQ AG AR AM AW AU AT AZ BS BH BD BB BY BE BZ BJ BM BT BO BA BW BV BR IO BN BG BF BI KH CM CA CV ' +
  'KY CF TD CL CN CX CC CO KM CG CD CK CR CI HR CU CY CZ DK DJ DM DO EC EG SV GQ ER EE ET FK FO FJ FI FR GF PF TF GA GM GE ' +
  'DE GH GI GR GL GD GP GU GT GG GN GW GY HT HM VA HN HK HU IS IN ID IR IQ IE IM IL IT JM JP JE JO KZ KE KI KP KR KW KG LA ' +
  'LV LB LS LR LY LI LT LU MO MK MG MW MY MV ML MT MH MQ MR MU YT MX FM MD MC MN MS MA MZ MM NA NR NP NL AN NC NZ NI NE NG ' +
  'NU NF MP NO OM PK PW PS PA PG PY PE PH PN PL PT PR QA RE RO RU RW SH KN LC PM VC WS SM ST SA SN CS SC SL SG SK SI SB SO ' +
  'ZA GS ES LK SD SR SJ SZ SE CH SY TW TJ TZ TH TL TG TK TO TT TN TR TM TC TV UG UA AE GB US UM UY UZ VU VE VN VG VI WF EH ' +
  'YE ZM ZW'
).split(' ');

/** The ISO 3166-1 alpha-3 code of each XSD_COUNTRY_CODES entry, same order (SCG and ANT: the withdrawn codes of CS and AN). */
export const ALPHA3_OF_XSD_CODES: readonly string[] = (
  'AFG ALA ALB DZA ASM AND AGO AIA ATA ATG ARG ARM ABW AUS AUT AZE BHS BHR BGD BRB BLR BEL BLZ BEN BMU BTN BOL BIH BWA BVT ' +
  'BRA IOT BRN BGR BFA BDI KHM CMR CAN CPV CYM CAF TCD CHL CHN CXR CCK COL COM COG COD COK CRI CIV HRV CUB CYP CZE DNK DJI ' +
  'DMA DOM ECU EGY SLV GNQ ERI EST ETH FLK FRO FJI FIN FRA GUF PYF ATF GAB GMB GEO DEU GHA GIB GRC GRL GRD GLP GUM GTM GGY ' +
  'GIN GNB GUY HTI HMD VAT HND HKG HUN ISL IND IDN IRN IRQ IRL IMN ISR ITA JAM JPN JEY JOR KAZ KEN KIR PRK KOR KWT KGZ LAO ' +
  'LVA LBN LSO LBR LBY LIE LTU LUX MAC MKD MDG MWI MYS MDV MLI MLT MHL MTQ MRT MUS MYT MEX FSM MDA MCO MNG MSR MAR MOZ MMR ' +
  'NAM NRU NPL NLD ANT NCL NZL NIC NER NGA NIU NFK MNP NOR OMN PAK PLW PSE PAN PNG PRY PER PHL PCN POL PRT PRI QAT REU ROU ' +
  'RUS RWA SHN KNA LCA SPM VCT WSM SMR STP SAU SEN SCG SYC SLE SGP SVK SVN SLB SOM ZAF SGS ESP LKA SDN SUR SJM SWZ SWE CHE ' +
  'SYR TWN TJK TZA THA TLS TGO TKL TON TTO TUN TUR TKM TCA TUV UGA UKR ARE GBR USA UMI URY UZB VUT VEN VNM VGB VIR WLF ESH ' +
  'YEM ZMB ZWE'
).split(' ');

const xsdCountries = new Set(XSD_COUNTRY_CODES);
const alpha2ByAlpha3 = new Map(ALPHA3_OF_XSD_CODES.map((alpha3, i) => [alpha3, XSD_COUNTRY_CODES[i] as string]));

/** Runs of white space (ECMAScript's \s, what the contract calls blank) become one space; the ends are trimmed. */
export function collapseWhitespace(value: string): string {
  return value.replace(/\s+/g, ' ').trim();
}

/**
 * A decimal with at most `digits` fraction digits (an XSD fractionDigits facet, 2.1.0's dimensions,
 * weights and quantities: docs/design/osn-2.1.0.md §3): the number as it is written, rounded half
 * to even at the last digit kept; the rounding told to `degraded` as `field`. Worked on the written
 * digits, not by arithmetic on the binary number, so that 0.00125 is a tie (0.0012) as written.
 */
export function fitFractionDigits(value: number, digits: number, field: string, degraded: Degraded): number {
  const text = formatDecimal(value);
  const point = text.indexOf('.');
  if (point === -1 || text.length - point - 1 <= digits) return value;
  degraded(field);
  const negative = text.startsWith('-');
  const fraction = text.slice(point + 1);
  const kept = text.slice(negative ? 1 : 0, point) + fraction.slice(0, digits);
  const dropped = fraction.slice(digits);
  const first = dropped.charCodeAt(0) - 48;
  const lastKeptIsOdd = (kept.charCodeAt(kept.length - 1) - 48) % 2 === 1;
  const up = first > 5 || (first === 5 && (/[1-9]/.test(dropped.slice(1)) || lastKeptIsOdd));
  const rounded = up ? (BigInt(kept) + 1n).toString().padStart(kept.length, '0') : kept;
  const wholeDigits = rounded.length - digits;
  return Number(`${negative ? '-' : ''}${rounded.slice(0, wholeDigits)}.${rounded.slice(wholeDigits)}`);
}

/**
 * A text value fitted to an XSD string of 1..max characters (code points, as XSD counts them):
 * collapsed, undefined when blank, cut at max (the cut told to `degraded` as `field`).
 */
export function fitText(value: string | undefined, max: number, field: string, degraded: Degraded): string | undefined {
  if (value === undefined) return undefined;
  const text = collapseWhitespace(value);
  if (text === '') return undefined;
  // Most values are short ASCII: a length in UTF-16 units at most max is at most max code points.
  if (text.length <= max) return text;
  const codePoints = Array.from(text);
  if (codePoints.length <= max) return text;
  degraded(field);
  // The cut may end on the space between two words: a value never ends with one.
  return codePoints.slice(0, max).join('').trimEnd();
}

/**
 * A required XSD string (address1, city, region, postalCode): as fitText, but a blank one, which
 * the contract refuses and so only an older document could hold, is written as `-` (the element
 * must be there and not empty) and told to `degraded`.
 */
export function fitRequiredText(value: string | undefined, max: number, field: string, degraded: Degraded): string {
  const text = fitText(value, max, field, degraded);
  if (text !== undefined) return text;
  degraded(field);
  return '-';
}

/**
 * A country as the XSD's list allows: trimmed and upper-cased, kept when listed; else `UK` is
 * `GB`, a listed country's alpha-3 code is its alpha-2 code (`USA` -> `US`); else left out
 * (`RS`, which the 2006 list lacks, names, anything else). No English names are read.
 */
export function fitCountry(value: string | undefined, field: string, degraded: Degraded): string | undefined {
  if (value === undefined) return undefined;
  const code = collapseWhitespace(value).toUpperCase();
  if (code === '') return undefined;
  if (xsdCountries.has(code)) return code;
  degraded(field);
  if (code === 'UK') return 'GB';
  return alpha2ByAlpha3.get(code);
}

/** The address lines' XSD length (addressLine: 1..35). */
const ADDRESS_LINE = 35;

/** address3 with v1's address4 after it (", " between), before cutting: 2.0.0 has no address4. */
function address3With4(address3: string | undefined, address4: string | undefined): string | undefined {
  const three = address3 === undefined ? '' : collapseWhitespace(address3);
  const four = address4 === undefined ? '' : collapseWhitespace(address4);
  if (three === '') return four === '' ? undefined : four;
  return four === '' ? three : `${three}, ${four}`;
}

/**
 * ShippingContactDetails of OSN 2.0.0 (SharedOSNObjects.xsd), fitted; keys in XSD order. An absent
 * value is undefined: neither writer writes it (no element, no JSON key).
 */
export type ShippingContactDetails = {
  attentionTo?: string;
  companyName?: string;
  address1: string;
  address2?: string;
  address3?: string;
  city: string;
  region: string;
  postalCode: string;
  country?: string;
  email?: string;
  phone?: string;
};

/** An OSN 2.0.0 ship-from or ship-to address fitted: lines 35, city 30, region (regionV2 ?? region) 3, country per fitCountry. */
export function fitShippingAddress(address: AddressV2View, degraded: Degraded): ShippingContactDetails {
  return {
    attentionTo: fitText(address.attentionTo, 35, 'attentionTo', degraded),
    companyName: fitText(address.companyName, 35, 'companyName', degraded),
    address1: fitRequiredText(address.address1, ADDRESS_LINE, 'address1', degraded),
    address2: fitText(address.address2, ADDRESS_LINE, 'address2', degraded),
    address3: fitText(address3With4(address.address3, address.address4), ADDRESS_LINE, 'address3', degraded),
    city: fitRequiredText(address.city, 30, 'city', degraded),
    region: fitRequiredText(fitText(address.regionV2, 3, 'region', degraded) ?? address.region, 3, 'region', degraded),
    postalCode: fitRequiredText(address.postalCode, 10, 'postalCode', degraded),
    country: fitCountry(address.country, 'country', degraded),
    email: fitText(address.email, 128, 'email', degraded),
    phone: fitText(address.phone, 32, 'phone', degraded),
  };
}

/**
 * A contact of OSS 2.0.0 fitted to SharedObjectsOrderStatusV2.xsd: names and numbers 64,
 * attentionTo and companyName 35, address lines 35, city 30, region 3, postalCode 10, email 128,
 * phone 32, country per fitCountry. comments (no maximum in the XSD) keeps its line breaks: only a
 * blank one is left out.
 */
export function fitContact(contact: ContactView, degraded: Degraded): ContactView {
  const comments = contact.comments !== undefined && collapseWhitespace(contact.comments) !== '' ? contact.comments : undefined;
  return {
    contactType: contact.contactType,
    accountName: fitText(contact.accountName, 64, 'accountName', degraded),
    accountNumber: fitText(contact.accountNumber, 64, 'accountNumber', degraded),
    attentionTo: fitText(contact.attentionTo, 35, 'attentionTo', degraded),
    companyName: fitText(contact.companyName, 35, 'companyName', degraded),
    address1: fitText(contact.address1, ADDRESS_LINE, 'address1', degraded),
    address2: fitText(contact.address2, ADDRESS_LINE, 'address2', degraded),
    address3: fitText(contact.address3, ADDRESS_LINE, 'address3', degraded),
    city: fitText(contact.city, 30, 'city', degraded),
    region: fitText(contact.region, 3, 'region', degraded),
    postalCode: fitText(contact.postalCode, 10, 'postalCode', degraded),
    country: fitCountry(contact.country, 'country', degraded),
    email: fitText(contact.email, 128, 'email', degraded),
    phone: fitText(contact.phone, 32, 'phone', degraded),
    comments,
  };
}
