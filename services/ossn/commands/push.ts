import { readPushConfig } from '../../config/config.js';
import { CredentialStore, credentialsCollection, UnknownCredentialError } from '../../adapters/mongodb/credential-store.js';
import { MongoPushSubscriptions, pushSubscriptionsCollection } from '../../adapters/mongodb/push-subscriptions.js';
import { newPushSubscription } from '../../domain/push/new-subscription.js';
import { isLoopbackHost } from '../../domain/push/receiver-url.js';
import { ReceiverPassword, receiverPasswordProblem } from '../../domain/push/receiver-password.js';
import { PushSubscriptionExistsError, type PushSubscriptionStore } from '../../domain/push/subscription-store.js';
import { credentialProblem, judgeSubscriptionRequest, overlappingSubscription, subscriptionView, type JudgedRequest, type SubscriptionView } from '../../domain/push/subscription.js';
import type { Command } from '../command.js';
import { parseCommandLine, takeAction } from '../command-line.js';
import { ExitCode } from '../exit-codes.js';
import { readPassword } from '../read-password.js';
import { connectMongoFor } from '../server-waits.js';
import { UsageError } from '../usage.js';

// `ossn push`: the push subscriptions (docs/operations.md, Push subscriptions). Sending, and what
// needs the sender, is not here.

const usage = `usage: ossn push <action> ...

ossn push add <credentialId> --url URL --id RECEIVER_ID [--client CLIENT_ID] [--customer-identifier X]
              [--from TIME] [--allow-http]
ossn push list [--json]
ossn push disable <subscriptionId>
ossn push enable <subscriptionId>
ossn push remove <subscriptionId>
    add subscribes the receiver at URL to the credential's ship notifications (OSN 2.1.0
    sendAdvanceShipmentNotification) and prints the new subscription's id; the credential must
    have the osn scope. RECEIVER_ID is the id ossn sends the receiver (1 to 64 characters)
    the receiver's password (or none) is read from stdin: typed at a terminal it is not shown (and
    asked twice), piped it is the first line; an empty line means none (the receiver asks for none)
    --client CLIENT_ID   that client only (one the credential is linked to); without it, every client
                         the credential is linked to when a notification is sent
    --customer-identifier X  sent to the receiver as its customer identifier (1 to 64 characters)
    --from TIME          shipment news since TIME (2026-05-01T10:00:00Z, a zone required) is pushed;
                         without it, news from when it is added
    --allow-http         plain http to another machine, for a trial only: the password and the
                         notifications cross the network in the clear (http to localhost,
                         127.0.0.0/8 or ::1 is taken without it; https otherwise)
    list shows each subscription's id, state, credential, client (* for every client), URL,
    receiver id, password (set or none, never the password), customer identifier, when it was
    created and where pushing starts
  The receiver's password is stored encrypted with the key in OSSN_SECRET_KEY or
  OSSN_SECRET_KEY_FILE, which every action needs; see docs/operations.md (Push subscriptions)`;

const options = {
  url: { type: 'string' },
  id: { type: 'string' },
  client: { type: 'string' },
  'customer-identifier': { type: 'string' },
  from: { type: 'string' },
  'allow-http': { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

/** The options each action takes: one given to another action is refused, not silently ignored. */
const actionOptions = {
  add: ['url', 'id', 'client', 'customer-identifier', 'from', 'allow-http'],
  list: ['json'],
  disable: [],
  enable: [],
  remove: [],
} as const satisfies Record<string, readonly (keyof typeof options)[]>;

const actions = Object.keys(actionOptions) as (keyof typeof actionOptions)[];

const positionalsOf = {
  add: { names: '<credentialId>', min: 1, max: 1 },
  list: { names: '', min: 0, max: 0 },
  disable: { names: '<subscriptionId>', min: 1, max: 1 },
  enable: { names: '<subscriptionId>', min: 1, max: 1 },
  remove: { names: '<subscriptionId>', min: 1, max: 1 },
} as const;

function listLine(s: SubscriptionView): string {
  return [
    s.id,
    s.enabled ? 'enabled' : 'disabled',
    `credential=${s.credentialId}`,
    `client=${s.clientId ?? '*'}`,
    `url=${s.url}`,
    `receiver-id=${s.receiverId}`,
    `password=${s.password}`,
    `customer-identifier=${s.customerIdentifier ?? '-'}`,
    `created=${s.createdAt}`,
    `from=${s.cursorStart}`,
  ].join('\t');
}

export const pushCommand: Command = { help: usage, run: push };

async function push(argv: string[]): Promise<ExitCode> {
  const { action, rest } = takeAction('push', actions, argv);
  const { values, positionals } = parseCommandLine({ name: `push ${action}`, options, accepts: actionOptions[action], positionals: positionalsOf[action] }, rest);
  const id = positionals[0] ?? '';
  // Every mistake in the command line is said before anything is read or asked: exit 2, nothing done.
  let judged: JudgedRequest | undefined;
  if (action === 'add') {
    for (const required of ['url', 'id'] as const) {
      if (values[required] === undefined) throw new UsageError(`ossn push add: missing --${required} (see ossn push --help)`);
    }
    const request = {
      credentialId: id,
      clientId: values.client,
      url: values.url ?? '',
      receiverId: values.id ?? '',
      customerIdentifier: values['customer-identifier'],
      from: values.from,
      allowHttp: values['allow-http'] === true,
    };
    const outcome = judgeSubscriptionRequest(request, new Date());
    if ('problems' in outcome) throw new UsageError(outcome.problems.join('; '));
    judged = outcome.judged;
  }

  const config = readPushConfig();
  const client = await connectMongoFor('push', config.store.mongodbUri);
  try {
    const db = client.db(config.store.database);
    const store: PushSubscriptionStore = new MongoPushSubscriptions(pushSubscriptionsCollection(db));
    switch (action) {
      case 'add': {
        const request = judged as JudgedRequest;
        // Asked before the password is: a refusal should not cost the operator a typed password.
        const credential = await new CredentialStore(credentialsCollection(db)).find(request.credentialId);
        if (!credential) throw new UnknownCredentialError(request.credentialId);
        const problem = credentialProblem({ id: credential._id, scopes: credential.scopes, clientIds: credential.clientIds }, request.clientId);
        if (problem !== undefined) throw new Error(problem);
        const overlapping = overlappingSubscription(request, await store.list());
        if (overlapping) throw new PushSubscriptionExistsError(overlapping, overlapping.id);

        const text = await readPassword(process.stdin, process.stderr, 'receiver password, or none: an empty line (not shown): ');
        const passwordProblem = receiverPasswordProblem(text);
        if (passwordProblem !== undefined) throw new UsageError(passwordProblem);
        const subscription = newPushSubscription(request, { key: config.secretKey, now: new Date(), ...(text === '' ? {} : { password: new ReceiverPassword(text) }) });
        await store.add(subscription);
        const view = subscriptionView(subscription);
        process.stdout.write(
          `added push subscription ${view.id}: credential ${view.credentialId}, ${view.clientId === null ? 'every client' : `client ${view.clientId}`}, to ${view.url}, receiver id ${view.receiverId}, password ${view.password}, from ${view.cursorStart}\n`,
        );
        const url = new URL(view.url);
        if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
          process.stderr.write('warning: the receiver URL is plain http: its password and the notifications cross the network in the clear (a trial only)\n');
        }
        return ExitCode.ok;
      }
      case 'list': {
        const views = (await store.list()).map(subscriptionView);
        if (values.json) process.stdout.write(`${JSON.stringify(views, null, 2)}\n`);
        else for (const view of views) process.stdout.write(`${listLine(view)}\n`);
        return ExitCode.ok;
      }
      case 'disable':
      case 'enable':
        await store.setEnabled(id, action === 'enable');
        process.stdout.write(`push subscription ${id} ${action}d\n`);
        return ExitCode.ok;
      case 'remove':
        await store.remove(id);
        process.stdout.write(`push subscription ${id} removed\n`);
        return ExitCode.ok;
    }
  } finally {
    await client.close();
  }
}
