// The per-address connection cap on a listening server: past the cap an address's new sockets are
// closed unanswered, a freed slot is reused, and peers trusted as proxies are not capped.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { connect, type Socket } from 'node:net';
import { test } from 'node:test';
import { capConnectionsPerAddress, peerAddress, trustsPeer } from '../../src/http/connection-cap.ts';

/** Connects from `localAddress`; resolves with the socket and whether the server closed it within 300 ms. */
function open(port: number, localAddress: string): Promise<{ socket: Socket; closedByServer: boolean }> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress });
    socket.on('error', () => {});
    let timer: NodeJS.Timeout;
    socket.once('close', () => {
      clearTimeout(timer);
      resolve({ socket, closedByServer: true });
    });
    socket.once('connect', () => {
      timer = setTimeout(() => resolve({ socket, closedByServer: false }), 300);
    });
  });
}

test('capConnectionsPerAddress: an address past the cap is closed, others and trusted peers are not', async () => {
  const server = createServer((_request, response) => response.end('ok'));
  const cap = capConnectionsPerAddress(server, 2, { exempt: trustsPeer(['127.0.0.4']) });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  try {
    const capped = await Promise.all([1, 2, 3, 4].map(() => open(port, '127.0.0.5')));
    assert.deepEqual(capped.map((one) => one.closedByServer).sort(), [false, false, true, true]);
    assert.equal(cap.openFrom('127.0.0.5'), 2);
    const proxy = await Promise.all([1, 2, 3, 4].map(() => open(port, '127.0.0.4')));
    assert.deepEqual(
      proxy.map((one) => one.closedByServer),
      [false, false, false, false],
    );
    const other = await open(port, '127.0.0.6');
    assert.equal(other.closedByServer, false);
    // A freed slot is counted back.
    const held = capped.find((one) => !one.closedByServer)!;
    held.socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(cap.openFrom('127.0.0.5'), 1);
    assert.equal((await open(port, '127.0.0.5')).closedByServer, false);
    for (const one of [...capped, ...proxy, other]) one.socket.destroy();
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test('trustsPeer follows TRUST_PROXY: true and hop counts trust the peer, lists trust their members', () => {
  assert.equal(trustsPeer(true)('203.0.113.9'), true);
  assert.equal(trustsPeer(false)('127.0.0.1'), false);
  assert.equal(trustsPeer(1)('203.0.113.9'), true);
  assert.equal(trustsPeer(0)('203.0.113.9'), false);
  const list = trustsPeer(['10.0.0.0/8', '192.0.2.1', 'loopback', '2001:db8::/32', '999.1.1.1']);
  const cases: Array<[string, boolean]> = [
    ['10.20.30.40', true],
    ['11.0.0.1', false],
    ['192.0.2.1', true],
    ['192.0.2.2', false],
    ['127.0.0.1', true],
    ['::1', true],
    ['2001:db8::5', true],
    ['2001:db9::1', false],
  ];
  for (const [address, trusted] of cases) assert.equal(list(address), trusted, address);
  assert.equal(trustsPeer(['uniquelocal'])('172.16.5.4'), true);
  assert.equal(trustsPeer(['linklocal'])('169.254.1.1'), true);
});

test('peerAddress writes IPv4-mapped IPv6 addresses as IPv4', () => {
  assert.equal(peerAddress('::ffff:192.0.2.7'), '192.0.2.7');
  assert.equal(peerAddress('2001:db8::1'), '2001:db8::1');
  assert.equal(peerAddress(undefined), null);
});
