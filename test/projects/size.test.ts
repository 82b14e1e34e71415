import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { generateKey, hashKey, keyPrefix, looksLikeKey } from '../../src/projects/keys.ts';
import { formatBytes, parseSize, roundHalfAwayFromZero } from '../../src/projects/size.ts';

const unitBytes: Record<string, number> = { B: 1, KB: 1e3, MB: 1e6, GB: 1e9 };
const formatted = /^(0|[1-9]\d*)(\.\d?[1-9])? (B|KB|MB|GB)$/;

/** The number and unit of a formatted size, checked against the contract's shape. */
function split(text: string): { value: number; unit: string } {
  const match = formatted.exec(text);
  assert.ok(match, `${JSON.stringify(text)} is not "<number> <B|KB|MB|GB>" with ≤ 2 decimals`);
  return { value: Number(`${match[1]}${match[2] ?? ''}`), unit: match[3] };
}

describe('formatBytes', () => {
  const cases: [number, string][] = [
    [0, '0 B'],
    [1, '1 B'],
    [512, '512 B'],
    [999, '999 B'],
    [1000, '1 KB'],
    [1001, '1 KB'],
    [1004, '1 KB'],
    [1005, '1.01 KB'],
    [1010, '1.01 KB'],
    [1100, '1.1 KB'],
    [1500, '1.5 KB'],
    [1994, '1.99 KB'],
    [1995, '2 KB'],
    [2000, '2 KB'],
    [12_345, '12.35 KB'],
    [12_344, '12.34 KB'],
    [999_500, '999.5 KB'],
    [999_994, '999.99 KB'],
    [999_995, '1 MB'],
    [999_999, '1 MB'],
    [1_000_000, '1 MB'],
    [1_005_000, '1.01 MB'],
    [1_250_000, '1.25 MB'],
    [12_340_000, '12.34 MB'],
    [12_345_000, '12.35 MB'],
    [500_000_000, '500 MB'],
    [999_994_999, '999.99 MB'],
    [999_995_000, '1 GB'],
    [999_999_999, '1 GB'],
    [1_000_000_000, '1 GB'],
    [1_500_000_000, '1.5 GB'],
    [2_675_000_000, '2.68 GB'],
    [999_990_000_000, '999.99 GB'],
  ];
  for (const [bytes, expected] of cases) {
    test(`${bytes} bytes are written ${JSON.stringify(expected)}`, () => {
      assert.equal(formatBytes(bytes), expected);
    });
  }

  test('sizes of a terabyte and more stay in GB, the largest unit of the contract', () => {
    assert.equal(formatBytes(1_000_000_000_000), '1000 GB');
    assert.equal(formatBytes(999_999_999_999), '1000 GB');
    assert.equal(formatBytes(2_500_000_000_000), '2500 GB');
    assert.equal(formatBytes(1_234_567_000_000), '1234.57 GB');
  });

  test('every size has at most two decimals, no trailing zero, and the largest unit with a value ≥ 1', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e13 }), (bytes) => {
        const { value, unit } = split(formatBytes(bytes));
        if (bytes < 1000) {
          assert.equal(unit, 'B');
          assert.equal(value, bytes);
          return;
        }
        assert.ok(value >= 1, `${bytes} → ${value} ${unit}`);
        if (unit !== 'GB') assert.ok(value < 1000, `${bytes} → ${value} ${unit}: a larger unit fits`);
        // The unit is the largest one the size reaches (rounding may carry it one unit up).
        const exact = bytes / unitBytes[unit];
        assert.ok(exact >= 0.99995, `${bytes} → ${value} ${unit}: the unit is too large`);
      }),
      { numRuns: 2000 },
    );
  });

  test('formatting is the size rounded half away from zero to two decimals of its unit', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e13 }), (bytes) => {
        const { value, unit } = split(formatBytes(bytes));
        const size = unitBytes[unit];
        // Integer arithmetic, free of floating-point error: value × 100 is the rounded hundredths.
        const hundredths = Math.round(value * 100);
        const twice = 2 * bytes * 100;
        // |bytes / size − hundredths / 100| ≤ 0.005, with an exact half rounded up (away from zero).
        assert.ok(
          hundredths * 2 * size - size <= twice && twice < hundredths * 2 * size + size,
          `${bytes} → ${value} ${unit}`,
        );
      }),
      { numRuns: 2000 },
    );
  });

  test('parseSize(formatBytes(n)) is n within half a hundredth of the unit used', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e13 }), (bytes) => {
        const text = formatBytes(bytes);
        const { unit } = split(text);
        const parsed = parseSize(text);
        assert.notEqual(parsed, null, text);
        assert.ok(Math.abs(parsed! - bytes) <= unitBytes[unit] / 200, `${bytes} → ${text} → ${parsed}`);
      }),
      { numRuns: 2000 },
    );
  });

  test('a larger size is never written as a smaller one', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e13 }), fc.integer({ min: 0, max: 1e13 }), (a, b) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        assert.ok(parseSize(formatBytes(low))! <= parseSize(formatBytes(high))!, `${low} vs ${high}`);
      }),
      { numRuns: 2000 },
    );
  });

  test('a formatted size parses back to itself and formats to the same text', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e13 }), (bytes) => {
        const text = formatBytes(bytes);
        assert.equal(formatBytes(parseSize(text)!), text);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('parseSize', () => {
  const valid: [string, number][] = [
    ['0 B', 0],
    ['512 B', 512],
    ['2000 B', 2000],
    ['1 KB', 1000],
    ['1.5 KB', 1500],
    ['1.5KB', 1500],
    ['  1 kb  ', 1000],
    ['12.34 MB', 12_340_000],
    ['500 MB', 500_000_000],
    ['500mb', 500_000_000],
    ['1 GB', 1_000_000_000],
    ['1.5GB', 1_500_000_000],
    ['2 TB', 2_000_000_000_000],
    ['0.001 KB', 1],
    ['007 KB', 7000],
  ];
  for (const [text, bytes] of valid) {
    test(`${JSON.stringify(text)} is ${bytes} bytes`, () => {
      assert.equal(parseSize(text), bytes);
    });
  }

  const invalid = [
    '',
    ' ',
    'MB',
    '500',
    '1.5',
    '-1 MB',
    '+1 MB',
    '1,5 MB',
    '1e3 MB',
    '1. MB',
    '.5 MB',
    '1 XB',
    '1 KiB',
    '1 M',
    '1 MB extra',
    'one MB',
    '1 MB 2 KB',
    'Infinity MB',
    'NaN B',
  ];
  for (const text of invalid) {
    test(`${JSON.stringify(text)} is not a size`, () => {
      assert.equal(parseSize(text), null);
    });
  }
});

describe('roundHalfAwayFromZero', () => {
  const cases: [number, number, number][] = [
    [1.005, 2, 1.01],
    [-1.005, 2, -1.01],
    [1.004, 2, 1],
    [2.5, 0, 3],
    [-2.5, 0, -3],
    [0.125, 2, 0.13],
    [-0.125, 2, -0.13],
    [1.2345, 3, 1.235],
    [12.345, 2, 12.35],
    [0, 2, 0],
    [99.995, 2, 100],
    [33.33333, 1, 33.3],
  ];
  for (const [value, decimals, expected] of cases) {
    test(`${value} to ${decimals} decimals is ${expected}`, () => {
      assert.equal(roundHalfAwayFromZero(value, decimals), expected);
    });
  }

  test('a negative value that rounds to zero is 0, not -0', () => {
    assert.ok(Object.is(roundHalfAwayFromZero(-0.001, 2), 0));
    assert.ok(Object.is(roundHalfAwayFromZero(-0, 2), 0));
  });

  test('rounding is symmetric around zero and within half a unit of the last decimal', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e9, max: 1e9 }), fc.integer({ min: 0, max: 3 }), (n, decimals) => {
        // n thousandths: exact decimal inputs such as 1.005, whose binary form is slightly off.
        const value = n / 1000;
        const rounded = roundHalfAwayFromZero(value, decimals);
        assert.equal(roundHalfAwayFromZero(-value, decimals), -rounded || 0);
        // Integer check: |n − rounded × 1000| ≤ half of 10^(3 − decimals), ties away from zero.
        const step = 10 ** (3 - decimals);
        const roundedThousandths = Math.round(rounded * 1000);
        assert.equal(Math.abs(roundedThousandths) % step, 0);
        const diff = Math.abs(n) - Math.abs(roundedThousandths);
        assert.ok(-step / 2 <= diff && diff < step / 2, `${value} to ${decimals} → ${rounded}`);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('API keys', () => {
  test('a secret key is folio_sk_ followed by 40 base62 characters', () => {
    const key = generateKey('secret');
    assert.match(key, /^folio_sk_[0-9A-Za-z]{40}$/);
  });

  test('a public key is folio_pk_ followed by 40 base62 characters', () => {
    const key = generateKey('public');
    assert.match(key, /^folio_pk_[0-9A-Za-z]{40}$/);
  });

  test('generated keys are all distinct', () => {
    const keys = new Set<string>();
    for (let i = 0; i < 2000; i++) keys.add(generateKey(i % 2 === 0 ? 'secret' : 'public'));
    assert.equal(keys.size, 2000);
    const bodies = new Set([...keys].map((key) => key.slice('folio_sk_'.length)));
    assert.equal(bodies.size, 2000);
  });

  test('every base62 character is equally likely (no modulo bias)', () => {
    const counts = new Map<string, number>();
    const keys = 5000;
    for (let i = 0; i < keys; i++) {
      for (const char of generateKey('secret').slice('folio_sk_'.length)) {
        counts.set(char, (counts.get(char) ?? 0) + 1);
      }
    }
    assert.equal(counts.size, 62);
    // 200,000 characters: 3226 expected each, standard deviation 56. A byte % 62 without rejection
    // would give the first eight characters about 3906 each.
    const expected = (keys * 40) / 62;
    for (const [char, count] of counts) {
      assert.ok(
        Math.abs(count - expected) < 340,
        `${char} appeared ${count} times, expected about ${expected}`,
      );
    }
  });

  test('hashKey is the SHA-256 hex digest of the key', () => {
    assert.equal(hashKey('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const key = generateKey('secret');
    assert.equal(hashKey(key), createHash('sha256').update(key).digest('hex'));
    assert.match(hashKey(key), /^[0-9a-f]{64}$/);
    assert.equal(hashKey(key), hashKey(key));
    assert.notEqual(hashKey(key), hashKey(generateKey('secret')));
  });

  test('the hash never contains the key', () => {
    const key = generateKey('secret');
    assert.ok(!hashKey(key).includes(key.slice('folio_sk_'.length)));
  });

  test('keyPrefix shows the kind marker and the first four characters only', () => {
    const key = generateKey('public');
    assert.equal(keyPrefix(key), key.slice(0, 13));
    assert.match(keyPrefix(key), /^folio_pk_[0-9A-Za-z]{4}$/);
    assert.equal(keyPrefix('folio_sk_abcdefghij'), 'folio_sk_abcd');
  });

  test('looksLikeKey accepts every generated key', () => {
    for (let i = 0; i < 200; i++) {
      assert.ok(looksLikeKey(generateKey('secret')));
      assert.ok(looksLikeKey(generateKey('public')));
    }
  });

  test('looksLikeKey accepts 32 or more base62 characters after a known prefix', () => {
    assert.ok(looksLikeKey(`folio_sk_${'a'.repeat(32)}`));
    assert.ok(looksLikeKey(`folio_pk_${'Z9'.repeat(16)}`));
    assert.ok(looksLikeKey(`folio_sk_${'x'.repeat(191)}`));
  });

  test('looksLikeKey refuses anything else', () => {
    const body = 'a'.repeat(40);
    for (const value of [
      '',
      body,
      `folio_sk_${'a'.repeat(31)}`,
      `folio_xk_${body}`,
      `FOLIO_SK_${body}`,
      `folio_sk${body}`,
      `folio_sk__${body}`,
      `folio_sk_${body}-`,
      `folio_sk_${body}!`,
      `folio_sk_${body} `,
      ` folio_sk_${body}`,
      `folio_sk_${body}\n`,
      `folio_sk_${'a'.repeat(39)}é`,
      `folio_sk_${'a'.repeat(192)}`,
    ]) {
      assert.equal(looksLikeKey(value), false, JSON.stringify(value));
    }
  });
});
