// `ossn start`'s banner, how to try push: the trial receiver's address as `npm run receiver` listens
// by default, and the secret key asked for when the start has none. (start-command.int.test.ts runs
// the printed commands against a real start.)
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RECEIVER_PATH } from '../../scripts/receiver/receiver.js';
import { examples, trialReceiver } from './start-examples.js';

const banner = (keyGiven: boolean, pusher?: string) =>
  examples({
    baseUrl: 'http://localhost:8080',
    id: 'demo',
    password: 'demo-password-0123',
    operators: { projector: 'http://127.0.0.1:9464', query: 'http://127.0.0.1:9465', ...(pusher ? { pusher } : {}) },
    push: { keyGiven, store: "MONGODB_URI='mongodb://127.0.0.1:27018/?replicaSet=rs0'" },
    now: new Date('2026-05-01T10:00:00Z'),
  });

const pushAdd = "  echo | MONGODB_URI='mongodb://127.0.0.1:27018/?replicaSet=rs0' npx ossn push add demo --url http://127.0.0.1:8090/osn/2.1.0 --id ossn --from 2000-01-01T00:00:00Z\n";

describe('the banner of ossn start, on push', () => {
  it('names the trial receiver as npm run receiver listens by default: its path, port and id', () => {
    const url = new URL(trialReceiver.url);
    expect(url.pathname).toBe(RECEIVER_PATH);
    const cli = readFileSync(new URL('../../scripts/receiver/cli.ts', import.meta.url), 'utf8');
    expect(cli).toContain(`port to listen on (default ${url.port}`);
    expect(cli).toContain(`address to listen on (default ${url.hostname})`);
    expect(cli).toContain(`the id ossn must send (default ${trialReceiver.id})`);
  });

  it('without a key: how to make one, then the receiver and the subscription of the demo credential to it', () => {
    const text = banner(false);
    expect(text).toContain('push needs OSSN_SECRET_KEY');
    expect(text).toContain('  export OSSN_SECRET_KEY="$(openssl rand -base64 32)"\n');
    expect(text).toContain('  npm run receiver\n');
    expect(text).toContain(pushAdd);
    expect(text).not.toMatch(/^ {2}pusher /m);
  });

  it('with a key: the receiver and the subscription, when the pusher starts, and its operators\' address once it runs', () => {
    const waiting = banner(true);
    expect(waiting).not.toContain('openssl');
    expect(waiting).toContain('  npm run receiver\n');
    expect(waiting).toContain(pushAdd);
    expect(waiting).toContain('The pusher starts in this process within 5 s of the first subscription');
    const running = banner(true, 'http://127.0.0.1:9466');
    expect(running).toContain('The pusher runs in this process');
    expect(running).toContain('  pusher         http://127.0.0.1:9466\n');
  });
});
