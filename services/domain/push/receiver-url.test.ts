import { describe, expect, it } from 'vitest';
import { isLoopbackHost, judgeReceiverUrl } from './receiver-url.js';

const httpsOnly = 'the receiver URL must be https (http only to this machine: localhost, 127.0.0.0/8, ::1; or with --allow-http, for a trial)';
const noUser = 'the receiver URL must not carry a user or password (user:pass@): the receiver password is read from stdin';
const noFragment = 'the receiver URL must not have a fragment (#...): it is never sent to the receiver';

describe('the receiver URL policy', () => {
  it.each<[string, boolean, { url: string } | { problem: string }]>([
    ['https://osn.partner.example/receiver', false, { url: 'https://osn.partner.example/receiver' }],
    ['HTTPS://OSN.Partner.Example:443/Receiver?x=1', false, { url: 'https://osn.partner.example/Receiver?x=1' }],
    ['https://osn.partner.example:8443', false, { url: 'https://osn.partner.example:8443/' }],
    ['http://osn.partner.example/receiver', false, { problem: httpsOnly }],
    ['http://osn.partner.example/receiver', true, { url: 'http://osn.partner.example/receiver' }],
    ['http://127.0.0.1:8080/osn', false, { url: 'http://127.0.0.1:8080/osn' }],
    ['http://127.9.8.7/osn', false, { url: 'http://127.9.8.7/osn' }],
    ['http://[::1]:8080/osn', false, { url: 'http://[::1]:8080/osn' }],
    ['http://localhost:8080/osn', false, { url: 'http://localhost:8080/osn' }],
    ['http://LOCALHOST./osn', false, { url: 'http://localhost./osn' }],
    ['http://128.0.0.1/osn', false, { problem: httpsOnly }],
    ['http://127.0.0.1.partner.example/osn', false, { problem: httpsOnly }],
    ['http://localhost.partner.example/osn', false, { problem: httpsOnly }],
    ['http://[::2]/osn', false, { problem: httpsOnly }],
    ['http://0.0.0.0/osn', false, { problem: httpsOnly }],
    ['https://user:s3cret@osn.partner.example/receiver', false, { problem: noUser }],
    ['https://user@osn.partner.example/receiver', false, { problem: noUser }],
    ['http://user:s3cret@127.0.0.1/receiver', true, { problem: noUser }],
    ['https://osn.partner.example/receiver#top', false, { problem: noFragment }],
    ['https://osn.partner.example/receiver#', false, { problem: noFragment }],
    ['ftp://osn.partner.example/receiver', true, { problem: 'the receiver URL must be https, got ftp:' }],
    ['osn.partner.example/receiver', false, { problem: 'the receiver URL is not a URL (https://host/path)' }],
    ['https://', false, { problem: 'the receiver URL is not a URL (https://host/path)' }],
  ])('%s (--allow-http %s)', (text, allowHttp, expected) => {
    expect(judgeReceiverUrl(text, { allowHttp })).toEqual(expected);
  });

  it('never quotes a password the URL carries', () => {
    const judged = judgeReceiverUrl('https://user:s3cret@osn.partner.example/receiver');
    expect(JSON.stringify(judged)).not.toContain('s3cret');
  });

  it.each<[string, boolean]>([
    ['localhost', true],
    ['a.localhost', false],
    ['127.0.0.1', true],
    ['127.255.255.254', true],
    ['[::1]', true],
    ['126.0.0.1', false],
    ['[::ffff:7f00:1]', false],
    ['partner.example', false],
  ])('%s is this machine: %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });
});
