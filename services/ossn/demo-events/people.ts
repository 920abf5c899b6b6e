import type { Random } from './random.js';

// The distributors' people and companies that demo orders name (contacts, ship-to recipients).

export const people = ['Jordan Lee', 'Sam Rivera', 'Alex Kim', 'Morgan Patel', 'Casey Nguyen', 'Riley Brooks', 'Taylor Reed'] as const;
export const companies = ['Acme Promotions', 'Brightline Branding', 'Summit Swag Co', 'Harbor Marketing', 'Northwind Promo'] as const;

/** `jordan.lee` of `Jordan Lee`: the local part of an email address. */
export const handle = (name: string): string => name.toLowerCase().replace(/[^a-z]+/g, '.');

export const emailOf = (name: string, company: string): string => `${handle(name)}@${handle(company).replace(/\./g, '')}.example`;

export const randomPhone = (random: Random): string => `${random.int(201, 989)}-555-${random.digits(4)}`;

/** Who receives a shipment (contract v2's address extras): a name and company, some with email and phone. */
export function randomRecipient(random: Random) {
  const name = random.pick(people);
  const company = random.pick(companies);
  return {
    attentionTo: name,
    companyName: company,
    ...(random.chance(0.6) && { email: emailOf(name, company), phone: randomPhone(random) }),
  };
}
