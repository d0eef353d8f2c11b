import { pick } from './prng.js';
import type { WorkspaceRec } from '../store/model.js';
import { webhookRow } from '../webhook/row.js';
import { DAY_MS, options, type SeedBuilder } from './builder.js';
import { CITIES } from './samples.js';
import { contacts } from './sales.js';

/** Marketing / "Contacts", the webhook-fed "Signups" and "Inbox", and "Empty". */
export function seedMarketingTables(seed: SeedBuilder, marketing: WorkspaceRec): void {
  const r = seed.random;
  const marketingContacts = seed.table(marketing, { name: 'Contacts', emoji: null }, [
    { label: 'Name', type: 'text' },
    { label: 'Email', type: 'email' },
    { label: 'Source', type: 'select', options: options(['Webinar', 'webinar'], ['Ads', 'ads'], ['Referral', 'referral']) },
  ]);
  seed.addRows(
    marketingContacts,
    contacts(seed, 10).map((contact) => ({ ...contact, source: pick(['webinar', 'ads', 'referral'], r()) })),
  );

  const signups = seed.table(marketing, { name: 'Signups', emoji: ':inbox_tray:', webhook: true }, [
    { label: 'Payload', type: 'webhook' },
    { label: 'Email', type: 'email', mapKey: 'email' },
    { label: 'Name', type: 'text', mapKey: 'name' },
    { label: 'Plan', type: 'select', mapKey: 'plan', options: options(['Free', 'free'], ['Pro', 'pro'], ['Team', 'team']) },
    { label: 'Seats', type: 'number', mapKey: 'seats' },
    { label: 'City', type: 'text', mapKey: 'address.city' },
  ]);
  const posted = contacts(seed, 10).map((contact, i) => ({
    email: contact.email,
    name: contact.name,
    plan: pick(['free', 'pro', 'team'], r()),
    ...(i % 3 === 1 ? {} : { seats: 1 + Math.floor(r() * 50) }),
    address: { city: pick(CITIES, r()), country: 'US' },
    utm: { source: pick(['newsletter', 'twitter', 'search'], r()) },
  }));
  signups.rows.append(
    posted.map((object, i) =>
      webhookRow(signups.table, object, seed.id('row_', 16), Math.floor(seed.now - (10 - i) * DAY_MS + r() * 3_600_000)),
    ),
  );

  seedInbox(seed, marketing);

  seed.table(marketing, { name: 'Empty', emoji: null }, [
    { label: 'Title', type: 'text' },
    { label: 'Body', type: 'text' },
  ]);
}

/**
 * The webhook-fed "Inbox": Payload and Email (mapped from the posted key "email"), then two action columns
 * that enrich each row that arrives: Domain (the domain of Email; failed when it has none) and Company (a name
 * from that domain), which waits for Domain.
 */
function seedInbox(seed: SeedBuilder, marketing: WorkspaceRec): void {
  const inbox = seed.table(marketing, { name: 'Inbox', emoji: ':incoming_envelope:', webhook: true }, [
    { label: 'Payload', type: 'webhook' },
    { label: 'Email', type: 'email', mapKey: 'email' },
  ]);
  const [domain, company] = seed.addFields(
    inbox,
    [
      { label: 'Domain', type: 'action' },
      { label: 'Company', type: 'action' },
    ],
    20_250_101,
  );
  domain!.action = { from: inbox.field('email').id, derive: 'domain' };
  company!.action = { dependsOn: domain!.id, derive: 'company' };
}
