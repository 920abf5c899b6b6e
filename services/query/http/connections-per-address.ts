// A fair share of the partner port: one address may hold at most so many connections, so that one
// client holding its share (slow bodies, idle keep-alives) leaves room for every other partner.
// Counted under the same key as failed logins (an IPv6 /64, a NAT64 address's IPv4 client).
import type { Server } from 'node:http';
import { loginAddressKey } from '../rate-limit/login-guard.js';

/** Closes at once a connection beyond `cap` from one address; the count drops as connections close. */
export function capConnectionsPerAddress(server: Server, cap: number): void {
  const open = new Map<string, number>();
  server.on('connection', (socket) => {
    const key = loginAddressKey(socket.remoteAddress ?? '');
    const count = open.get(key) ?? 0;
    if (count >= cap) {
      socket.destroy();
      return;
    }
    open.set(key, count + 1);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left > 0) open.set(key, left);
      else open.delete(key);
    });
  });
}
