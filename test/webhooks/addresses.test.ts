import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  AddressPolicy,
  embeddedIpv4,
  isNonPublicAddress,
  TargetRefusedError,
} from '../../src/webhooks/addresses.ts';
import { stubLookup } from './support.ts';

const nonPublic = [
  '10.0.0.1',
  '10.255.255.255',
  '172.16.0.1',
  '172.31.255.1',
  '192.168.0.1',
  '192.168.100.7',
  '127.0.0.1',
  '127.8.9.10',
  '169.254.169.254',
  '100.64.0.1',
  '100.127.255.254',
  '0.0.0.0',
  '224.0.0.251',
  '239.1.1.1',
  '255.255.255.255',
  '::',
  '::1',
  'fd00::',
  'fd12:3456::1',
  'fc00::1',
  'fe80::1',
  'ff02::1',
  '::ffff:10.0.0.1',
  '::ffff:127.0.0.1',
  '::ffff:a9fe:a9fe',
  '64:ff9b::a00:1',
  '::127.0.0.1',
];
const publicOnes = [
  '93.184.216.34',
  '8.8.8.8',
  '172.32.0.1',
  '100.128.0.1',
  '2606:4700::1111',
  '::ffff:8.8.8.8',
];

test('isNonPublicAddress: private, loopback, link-local, unique-local, CGNAT, multicast, unspecified, mapped', () => {
  for (const address of nonPublic) assert.ok(isNonPublicAddress(address), address);
  for (const address of publicOnes) assert.ok(!isNonPublicAddress(address), address);
  assert.ok(isNonPublicAddress('not an address'));
});

test('embeddedIpv4: the IPv4 address inside mapped, compatible and NAT64 addresses', () => {
  assert.equal(embeddedIpv4('::ffff:10.0.0.1'), '10.0.0.1');
  assert.equal(embeddedIpv4('::ffff:a9fe:a9fe'), '169.254.169.254');
  assert.equal(embeddedIpv4('64:ff9b::808:808'), '8.8.8.8');
  assert.equal(embeddedIpv4('2606:4700::1111'), null);
  assert.equal(embeddedIpv4('::1'), null);
});

test('AddressPolicy.resolve: refuses literals and names resolving to non-public addresses (stubbed DNS, no socket)', async () => {
  const policy = new AddressPolicy(false, stubLookup);
  for (const url of [
    'http://10.0.0.1/',
    'http://192.168.1.1/',
    'http://169.254.169.254/',
    'http://[::1]/',
    'http://[fd00::]/',
    'http://[::ffff:192.168.0.1]/',
    'https://intranet.example.com/',
    'https://v6-private.example.com/',
    'https://mixed.example.com/',
    'https://receiver.test/',
    'https://unknown.example.com/',
  ]) {
    await assert.rejects(policy.resolve(new URL(url)), TargetRefusedError, url);
  }
  assert.deepEqual(await policy.resolve(new URL('https://hooks.example.com/x')), {
    address: '93.184.216.34',
    family: 4,
  });
});

test('AddressPolicy: an allow-list lets those addresses and ranges through, nothing else', async () => {
  const policy = new AddressPolicy(['127.0.0.1', '10.1.0.0/16'], stubLookup);
  assert.ok(policy.allows('127.0.0.1'));
  assert.ok(policy.allows('::ffff:127.0.0.1'));
  assert.ok(policy.allows('10.1.2.3'));
  assert.ok(!policy.allows('10.2.0.1'));
  assert.ok(!policy.allows('127.0.0.2'));
  assert.ok(!policy.allows('::1'));
  assert.ok(policy.allows('8.8.8.8'));
  assert.equal((await policy.resolve(new URL('http://receiver.test:8080/'))).address, '127.0.0.1');
  const everything = new AddressPolicy(true, stubLookup);
  assert.ok(everything.allows('192.168.0.1'));
});
