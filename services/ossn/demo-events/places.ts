import type { Address } from '../../../contracts/erp-event-schema.js';
import type { Random } from './random.js';

// Real US cities with a ZIP code of theirs, so demo addresses look like what partners see.
const cities = [
  ['Austin', 'TX', '78701'],
  ['Denver', 'CO', '80202'],
  ['Columbus', 'OH', '43215'],
  ['Portland', 'OR', '97204'],
  ['Raleigh', 'NC', '27601'],
  ['Madison', 'WI', '53703'],
  ['Tampa', 'FL', '33602'],
  ['Minneapolis', 'MN', '55401'],
  ['Boise', 'ID', '83702'],
  ['Nashville', 'TN', '37203'],
  ['Sacramento', 'CA', '95814'],
  ['Albany', 'NY', '12207'],
  ['Richmond', 'VA', '23219'],
  ['Phoenix', 'AZ', '85004'],
  ['Kansas City', 'MO', '64106'],
  ['Salt Lake City', 'UT', '84111'],
  ['Omaha', 'NE', '68102'],
  ['Charleston', 'SC', '29401'],
  ['Burlington', 'VT', '05401'],
  ['Des Moines', 'IA', '50309'],
  ['Atlanta', 'GA', '30303'],
  ['Seattle', 'WA', '98101'],
  ['Pittsburgh', 'PA', '15222'],
  ['Louisville', 'KY', '40202'],
  ['Albuquerque', 'NM', '87102'],
] as const;

const streets = ['Main St', 'Oak Ave', 'Commerce Blvd', 'Market St', 'Lakeview Dr', 'Park Ave', 'Elm St', 'Cedar Ln', 'Washington Ave', 'Maple Rd', 'Broadway', 'Industrial Pkwy'];
const secondLines = ['Suite 200', 'Suite 1450', 'Floor 3', 'Attn: Marketing Dept', 'Dock 4', 'Unit B'];

/** The supplier's warehouses: where packages ship from. */
export const warehouses: readonly Address[] = [
  { address1: '1200 Distribution Way', city: 'Carrollton', region: 'TX', postalCode: '75006', country: 'US' },
  { address1: '455 Logistics Pkwy', address2: 'Building C', city: 'Jeffersonville', region: 'IN', postalCode: '47130', country: 'US' },
  { address1: '88 Harbor Blvd', city: 'Ontario', region: 'CA', postalCode: '91761-2204', country: 'US' },
];

export function randomAddress(random: Random): Address {
  const [city, region, zip] = random.pick(cities);
  return {
    address1: `${random.int(10, 9899)} ${random.pick(streets)}`,
    ...(random.chance(0.4) && { address2: random.pick(secondLines) }),
    city,
    region,
    postalCode: random.chance(0.25) ? `${zip}-${random.digits(4)}` : zip,
    country: 'US',
  };
}
