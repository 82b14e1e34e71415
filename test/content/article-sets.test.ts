// The pure parts of the article sets: the tokens and pieces of a search text (a term occurs in the
// text exactly when a token holds it, or it is one of the pieces), the stored form of a chunk, and
// the set algebra the list's count is made of.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  applyToChunk,
  chunkSize,
  decodeChunk,
  encodeChunk,
  OrdinalSet,
  SetChanges,
  isWhitespaceCode,
  tokensAndPieces,
  termSource,
  tokenWindow,
  windowStep,
} from '../../src/content/article-sets.ts';
import { searchTerms } from '../../src/content/articles.ts';

// Every character `\s` matches in JavaScript, and look-alikes it does not (U+180E, U+200B, U+0085
// are not whitespace for it).
const spaces = [
  ' ',
  '\t',
  '\n',
  '\v',
  '\f',
  '\r',
  '\u00a0',
  '\u1680',
  '\u2000',
  '\u200a',
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u3000',
  '\ufeff',
];
const notSpaces = ['\u180e', '\u200b', '\u0085', '\u001c', '\u001f'];
const letters = ['a', 'b', 'é', 'ß', 'σ', '中', '😀', '𝒳', '-', '.', '"', '%', '\\'];
const char = fc.constantFrom(...letters, ...spaces, ...notSpaces);
const text = fc.string({ unit: char, maxLength: 60 });
const word = fc.string({ unit: fc.constantFrom(...letters, ...notSpaces), minLength: 1, maxLength: 8 });

const tokensOf = (searchText: string) => tokensAndPieces(searchText).tokens;
const piecesOf = (searchText: string) => tokensAndPieces(searchText).pieces;
const holds = (tokens: Set<string>, term: string) => [...tokens].some((token) => token.includes(term));

describe('search tokens and pieces', () => {
  it('a term (no whitespace) occurs in the text exactly when a token holds it', () => {
    fc.assert(
      fc.property(text, word, (searchText, term) => {
        assert.equal(holds(tokensOf(searchText), term), searchText.includes(term));
      }),
      { numRuns: 2000 },
    );
  });

  it('splits on the whitespace the terms of ?search= are split on', () => {
    fc.assert(
      fc.property(text, (searchText) => {
        assert.deepEqual(tokensOf(searchText), new Set(searchTerms(searchText)));
      }),
    );
    assert.deepEqual([...tokensOf(' one\u3000two\u180ethree\u00a0\u00a0one ')], ['one', 'two\u180ethree']);
  });

  it('a term of one to three code points occurs exactly when it is one of the pieces', () => {
    fc.assert(
      fc.property(
        text,
        fc.string({ unit: fc.constantFrom(...letters, ...notSpaces), minLength: 1, maxLength: 3 }),
        (searchText, term) => {
          assert.equal(piecesOf(searchText).has(term), searchText.includes(term));
        },
      ),
      { numRuns: 3000 },
    );
    assert.deepEqual(
      [...piecesOf('abc d😀\u00a0e')].sort(),
      ['a', 'ab', 'abc', 'b', 'bc', 'c', 'd', 'd😀', '😀', 'e'].sort(),
    );
  });

  it('whitespace is exactly what \\s matches, for every code unit', () => {
    for (let code = 0; code <= 0xffff; code++) {
      assert.equal(isWhitespaceCode(code), /\s/u.test(String.fromCharCode(code)), code.toString(16));
    }
  });

  it('long tokens are kept as overlapping windows that hold every term of up to windowStep units', () => {
    const longToken = fc.string({
      unit: fc.constantFrom('a', 'b', 'é', '😀', '中'),
      minLength: tokenWindow,
      maxLength: 900,
    });
    fc.assert(
      fc.property(longToken, fc.nat(), fc.integer({ min: 1, max: windowStep }), (token, at, length) => {
        const tokens = tokensOf(`x ${token} y`);
        for (const window of tokens)
          assert.ok(window.length <= tokenWindow + 2, `window of ${window.length}`);
        const start = at % token.length;
        const term = token.slice(start, start + length);
        // Cut between the halves of a pair, a term is not a string any text holds; skip it.
        if (/^[\udc00-\udfff]|[\ud800-\udbff]$/.test(term)) return;
        assert.ok(holds(tokens, term), `${JSON.stringify(term)} at ${start}`);
      }),
      { numRuns: 500 },
    );
    // No window starts or ends between the two halves of a surrogate pair (PostgreSQL could not
    // store the lone half).
    for (const pairs of ['😀'.repeat(400), `a${'😀'.repeat(400)}`]) {
      const windows = tokensOf(pairs);
      assert.ok(windows.size >= 2);
      for (const window of windows) assert.doesNotMatch(window, /^[\udc00-\udfff]|[\ud800-\udbff]$/);
    }
    assert.ok(holds(tokensOf(`${'a'.repeat(300)}needle${'b'.repeat(300)}`), `${'a'.repeat(60)}needle`));
  });

  it('terms are counted from a piece, from tokens, or (too long for the windows) in the texts', () => {
    assert.deepEqual(termSource('a'), { kind: 'piece', key: 'c:a' });
    assert.deepEqual(termSource('😀😀😀'), { kind: 'piece', key: 'c:😀😀😀' });
    assert.deepEqual(termSource('the'), { kind: 'piece', key: 'c:the' });
    assert.deepEqual(termSource('abcd'), { kind: 'tokens', term: 'abcd' });
    assert.deepEqual(termSource('a'.repeat(windowStep)), { kind: 'tokens', term: 'a'.repeat(windowStep) });
    assert.deepEqual(termSource('a'.repeat(windowStep + 1)), { kind: 'text' });
  });
});

describe('ordinal sets', () => {
  const ordinals = fc.uniqueArray(fc.oneof(fc.nat(3 * chunkSize), fc.nat(300)), { maxLength: 3000 });

  it('a chunk is stored as a list below 256 members and as a 512-byte bitmap from 256, and read back', () => {
    for (const size of [1, 2, 255, 256, 257, chunkSize]) {
      const members = Array.from({ length: size }, (_, i) => Math.floor((i * chunkSize) / size));
      const set = OrdinalSet.of(members);
      const stored = encodeChunk(set.chunks.get(0)!)!;
      assert.equal(stored.length, size < 256 ? size * 2 : 512, `${size} members`);
      assert.deepEqual(new OrdinalSet(new Map([[0, decodeChunk(stored)]])).ordinals(), members);
    }
    assert.equal(encodeChunk(new Uint32Array(chunkSize / 32)), null);
  });

  it('round-trips any set through its stored chunks', () => {
    fc.assert(
      fc.property(ordinals, (members) => {
        const restored = new OrdinalSet();
        for (const [chunk, words] of OrdinalSet.of(members).chunks) {
          const stored = encodeChunk(words);
          if (stored !== null) restored.addStored(chunk, stored);
        }
        assert.deepEqual(
          restored.ordinals(),
          [...members].sort((a, b) => a - b),
        );
        assert.equal(restored.size, members.length);
      }),
    );
  });

  it('stored chunks joined end to end (as a term\u2019s word sets are read) add every member of each', () => {
    fc.assert(
      fc.property(fc.array(ordinals, { maxLength: 6 }), (sets) => {
        const joined = new OrdinalSet();
        const expected = new Set<number>();
        for (const bitmaps of [false, true]) {
          // Per chunk number, the stored chunks of that encoding, one after another.
          const parts = new Map<number, Uint8Array[]>();
          for (const members of sets) {
            for (const member of members) expected.add(member);
            for (const [chunk, words] of OrdinalSet.of(members).chunks) {
              const stored = encodeChunk(words)!;
              if ((stored.length === 512) !== bitmaps) continue;
              parts.set(chunk, [...(parts.get(chunk) ?? []), stored]);
            }
          }
          for (const [chunk, stored] of parts) joined.addJoined(chunk, Buffer.concat(stored), bitmaps);
        }
        assert.deepEqual(
          joined.ordinals(),
          [...expected].sort((a, b) => a - b),
        );
      }),
    );
  });

  it('and, or and minus agree with sets of numbers', () => {
    fc.assert(
      fc.property(ordinals, ordinals, (a, b) => {
        const [x, y] = [OrdinalSet.of(a), OrdinalSet.of(b)];
        const sorted = (values: number[]) => [...values].sort((m, n) => m - n);
        assert.deepEqual(x.and(y).ordinals(), sorted(a.filter((n) => b.includes(n))));
        assert.deepEqual(x.or(y).ordinals(), sorted([...new Set([...a, ...b])]));
        assert.deepEqual(x.minus(y).ordinals(), sorted(a.filter((n) => !b.includes(n))));
        assert.equal(x.and(y).size + x.minus(y).size, a.length);
        // The operands are left as they were.
        assert.deepEqual(x.ordinals(), sorted(a));
      }),
    );
  });

  it('changes record what an article joins and leaves, nothing for the sets it stays in', () => {
    const changes = new SetChanges();
    changes.article(5, new Set(['s:draft', 'g:1']), new Set(['s:published', 'g:1']));
    changes.article(chunkSize + 1, null, new Set(['g:1']));
    changes.article(7, new Set(['t:old']), null);
    // Joining: the ordinal less the chunk's first; leaving: -1 less that.
    const seen = Object.fromEntries(
      [...changes.chunks()].map(([chunk, sets]) => [chunk, Object.fromEntries(sets)]),
    );
    assert.deepEqual(seen, {
      0: { 's:published': [5], 's:draft': [-6], 't:old': [-8] },
      1: { 'g:1': [1] },
    });
    assert.equal(changes.size, 4);
    const words = decodeChunk(new Uint8Array([6, 0, 7, 0]));
    applyToChunk(words, [5, -8]);
    assert.deepEqual(new OrdinalSet(new Map([[0, words]])).ordinals(), [5, 6]);
  });

  it('changes of the chunks before an ordinal are taken apart, with their count; the later ones stay', () => {
    const changes = new SetChanges();
    changes.article(3, null, new Set(['g:1', 'g:2']));
    changes.article(chunkSize + 3, null, new Set(['g:1']));
    changes.article(2 * chunkSize, new Set(['g:1']), new Set(['g:2']));
    const taken = changes.takeChunksBefore(2 * chunkSize + 5);
    assert.deepEqual([...taken.chunks().keys()], [0, 1]);
    assert.equal(taken.size, 3);
    assert.deepEqual([...changes.chunks().keys()], [2]);
    assert.equal(changes.size, 2);
    assert.equal(changes.takeChunksBefore(2 * chunkSize).size, 0);
  });
});
