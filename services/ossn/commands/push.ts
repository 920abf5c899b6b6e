import { readPushConfig, readPusherConfig } from '../../config/config.js';
import { CredentialStore, credentialsCollection, UnknownCredentialError } from '../../adapters/mongodb/credential-store.js';
import { forgetPushSubscription } from '../../adapters/mongodb/forget-push-subscription.js';
import { MongoPushDeliveries, type PushDeliveryDocument } from '../../adapters/mongodb/push-deliveries.js';
import { MongoPushSubscriptions, pushSubscriptionsCollection, UnknownPushSubscriptionError } from '../../adapters/mongodb/push-subscriptions.js';
import { newPushSubscription } from '../../domain/push/new-subscription.js';
import { isLoopbackHost } from '../../domain/push/receiver-url.js';
import { ReceiverPassword, receiverPasswordProblem } from '../../domain/push/receiver-password.js';
import { PushSubscriptionExistsError, type PushSubscriptionStore } from '../../domain/push/subscription-store.js';
import { credentialProblem, judgeSubscriptionRequest, overlappingSubscription, subscriptionView, type JudgedRequest, type SubscriptionView } from '../../domain/push/subscription.js';
import type { Command } from '../command.js';
import { parseCommandLine, takeAction } from '../command-line.js';
import { ExitCode } from '../exit-codes.js';
import { pushTest } from '../push-test.js';
import { readPassword } from '../read-password.js';
import { connectMongoFor } from '../server-waits.js';
import { UsageError } from '../usage.js';

// `ossn push`: the push subscriptions, their parked deliveries, and a trial send (docs/operations.md,
// Push subscriptions). The sending itself is the pusher's (`ossn pusher`, and `ossn start`'s).

const usage = `usage: ossn push <action> ...

ossn push add <credentialId> --url URL --id RECEIVER_ID [--client CLIENT_ID] [--customer-identifier X]
              [--from TIME] [--allow-http]
ossn push list [--json]
ossn push disable <subscriptionId>
ossn push enable <subscriptionId>
ossn push remove <subscriptionId>
ossn push parked [<subscriptionId>] [--json]
ossn push redeliver <subscriptionId> [--purchase-order PO]
ossn push test <subscriptionId> [--purchase-order PO]
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
    remove also forgets the subscription's cursor and deliveries
    parked lists the deliveries the pusher gave up on (of one subscription, or all): subscription,
    client, purchase order, since when its news waits, attempts, the last attempt and why it was
    parked; news of a parked purchase order is counted but not sent until it is redelivered
    redeliver makes the subscription's parked deliveries (of one purchase order with
    --purchase-order) pending again, and prints how many: the pusher sends each one's latest picture
    test sends one notification now to the subscription's receiver (a purchase order's latest
    picture, as the pusher would: the one of --purchase-order, or else one with a package the
    subscription pushes for) and prints what the receiver answered as the pusher judges it:
    acknowledged with its transactionId, or transient or refused with the reason, and the HTTP
    status; exit code 0 only when acknowledged. It records nothing (the deliveries stay as they are)
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
  'purchase-order': { type: 'string' },
} as const;

/** The options each action takes: one given to another action is refused, not silently ignored. */
const actionOptions = {
  add: ['url', 'id', 'client', 'customer-identifier', 'from', 'allow-http'],
  list: ['json'],
  disable: [],
  enable: [],
  remove: [],
  parked: ['json'],
  redeliver: ['purchase-order'],
  test: ['purchase-order'],
} as const satisfies Record<string, readonly (keyof typeof options)[]>;

const actions = Object.keys(actionOptions) as (keyof typeof actionOptions)[];

const positionalsOf = {
  add: { names: '<credentialId>', min: 1, max: 1 },
  list: { names: '', min: 0, max: 0 },
  disable: { names: '<subscriptionId>', min: 1, max: 1 },
  enable: { names: '<subscriptionId>', min: 1, max: 1 },
  remove: { names: '<subscriptionId>', min: 1, max: 1 },
  parked: { names: '[<subscriptionId>]', min: 0, max: 1 },
  redeliver: { names: '<subscriptionId>', min: 1, max: 1 },
  test: { names: '<subscriptionId>', min: 1, max: 1 },
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

/** A parked delivery as `push parked` shows it: never the request, so never the receiver's password. */
function parkedView(d: PushDeliveryDocument) {
  return {
    subscriptionId: d.subscriptionId,
    clientId: d.clientId,
    purchaseOrderNumber: d.purchaseOrderNumber,
    newsSince: d.newsSince?.toISOString() ?? null,
    attempts: d.attempts,
    lastAttempt: d.last ? { at: d.last.at.toISOString(), outcome: d.last.outcome, status: d.last.status ?? null } : null,
    reason: d.parkedReason ?? null,
  };
}

function parkedLine(d: ReturnType<typeof parkedView>): string {
  const last = d.lastAttempt ? `${d.lastAttempt.at} ${d.lastAttempt.outcome}${d.lastAttempt.status === null ? '' : ` HTTP ${d.lastAttempt.status}`}` : '-';
  return [d.subscriptionId, `client=${d.clientId}`, `purchase-order=${d.purchaseOrderNumber}`, `news-since=${d.newsSince ?? '-'}`, `attempts=${d.attempts}`, `last=${last}`, `reason=${d.reason ?? '-'}`].join('\t');
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
  // A trial send waits for the receiver as long as the pusher does.
  const sendTimeoutMs = action === 'test' ? readPusherConfig().sendTimeoutMs : 0;
  const client = await connectMongoFor('push', config.store.mongodbUri);
  try {
    const db = client.db(config.store.database);
    const store: PushSubscriptionStore = new MongoPushSubscriptions(pushSubscriptionsCollection(db));
    const deliveries = MongoPushDeliveries.of(db);
    const existing = async () => {
      const subscription = await store.find(id);
      if (!subscription) throw new UnknownPushSubscriptionError(id);
      return subscription;
    };
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
        // A pusher working it lets go at its next look (its cursor gone, it holds no lease), and
        // forgets what its last round recorded meanwhile.
        await forgetPushSubscription(db, id);
        process.stdout.write(`push subscription ${id} removed\n`);
        return ExitCode.ok;
      case 'parked': {
        if (id !== '') await existing();
        const views = (await deliveries.parked(id === '' ? undefined : id)).map(parkedView);
        if (values.json) process.stdout.write(`${JSON.stringify(views, null, 2)}\n`);
        else for (const view of views) process.stdout.write(`${parkedLine(view)}\n`);
        return ExitCode.ok;
      }
      case 'redeliver': {
        await existing();
        const purchaseOrder = values['purchase-order'];
        const count = await deliveries.redeliver(id, purchaseOrder);
        process.stdout.write(
          `${count} parked ${count === 1 ? 'delivery' : 'deliveries'} of push subscription ${id}${purchaseOrder === undefined ? '' : ` (purchase order ${purchaseOrder})`} pending again: the pusher sends each one's latest picture\n`,
        );
        return ExitCode.ok;
      }
      case 'test': {
        const result = await pushTest({
          db,
          subscription: await existing(),
          key: config.secretKey,
          readModelVersion: config.store.readModelVersion,
          purchaseOrderNumber: values['purchase-order'],
          sendTimeoutMs,
        });
        for (const line of result.lines) process.stdout.write(`${line}\n`);
        return result.acknowledged ? ExitCode.ok : ExitCode.failure;
      }
    }
  } finally {
    await client.close();
  }
}
