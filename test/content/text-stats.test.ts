import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseMarkdown, renderMarkdown } from '../../src/content/markdown.ts';
import {
  countCharacters,
  countWords,
  plainTextOf,
  readTimeMinutes,
  summarize,
  textStats,
} from '../../src/content/text-stats.ts';

const codePointLength = (text: string): number => Array.from(text).length;

describe('markdown', () => {
  it('renders with raw HTML allowed, no linkify and no typographer', () => {
    assert.equal(
      renderMarkdown('# Hi\n\n<b>raw</b> www.example.com "quotes" --'),
      '<h1>Hi</h1>\n<p><b>raw</b> www.example.com &quot;quotes&quot; --</p>\n',
    );
  });

  it('renders GFM tables and strikethrough', () => {
    assert.match(renderMarkdown('| a |\n| - |\n| b |'), /<table>/);
    assert.equal(renderMarkdown('~~gone~~'), '<p><s>gone</s></p>\n');
  });

  it('exposes the token stream and keeps reference definitions per document', () => {
    assert.deepEqual(
      parseMarkdown('# Hi').map((token) => token.type),
      ['heading_open', 'inline', 'heading_close'],
    );
    parseMarkdown('[x]: /defined-elsewhere');
    assert.equal(renderMarkdown('[x]'), '<p>[x]</p>\n');
  });
});

describe('plainTextOf', () => {
  it('keeps heading, paragraph and list text as separate lines', () => {
    assert.equal(
      plainTextOf('# Title\n## Subtitle\nBody text\n\n- one\n- two'),
      'Title\nSubtitle\nBody text\none\ntwo',
    );
  });

  it('drops image syntax, alt text included', () => {
    assert.equal(plainTextOf('Look ![a cute cat](https://example.com/cat.png) here'), 'Look  here');
    assert.equal(plainTextOf('![Logo][logo]\n\n[logo]: /logo.png'), '');
  });

  it('keeps link labels but not URLs', () => {
    assert.equal(
      plainTextOf('Read [the docs](https://example.com/docs "Docs") today'),
      'Read the docs today',
    );
  });

  it('drops autolinks entirely', () => {
    assert.equal(plainTextOf('See <https://example.com/path> now'), 'See  now');
    assert.equal(plainTextOf('<me@example.com>'), '');
  });

  it('drops inline and block HTML', () => {
    assert.equal(plainTextOf('Hello <strong class="x">bold</strong> world'), 'Hello bold world');
    assert.equal(plainTextOf('<div class="note">\nhidden words\n</div>\n\nVisible text'), 'Visible text');
    assert.equal(plainTextOf('<!-- a comment -->'), '');
  });

  it('keeps inline code and code block contents', () => {
    assert.equal(plainTextOf('Call `npm run build` now'), 'Call npm run build now');
    assert.equal(
      plainTextOf('Intro\n\n```ts\nconst a = 1;\nconst b = 2;\n```'),
      'Intro\nconst a = 1;\nconst b = 2;',
    );
    assert.equal(plainTextOf('Intro\n\n    indented code'), 'Intro\nindented code');
  });

  it('puts table cells on separate lines', () => {
    assert.equal(plainTextOf('| Name | Age |\n| --- | --- |\n| Ann | 30 |'), 'Name\nAge\nAnn\n30');
  });

  it('flattens nested lists and block quotes', () => {
    assert.equal(plainTextOf('- one\n  - nested\n    > quoted\n- two'), 'one\nnested\nquoted\ntwo');
  });

  it('turns soft breaks into spaces and hard breaks into newlines', () => {
    assert.equal(plainTextOf('line one\nline two'), 'line one line two');
    assert.equal(plainTextOf('first  \nsecond\\\nthird'), 'first\nsecond\nthird');
  });

  it('decodes entities and escapes and drops emphasis markers', () => {
    assert.equal(plainTextOf('Tom &amp; Jerry &lt;3 &#233; \\*literal\\*'), 'Tom & Jerry <3 é *literal*');
    assert.equal(plainTextOf('*very* **bold** ~~gone~~ _x_'), 'very bold gone x');
  });

  it('is empty for empty or blank input', () => {
    assert.equal(plainTextOf(''), '');
    assert.equal(plainTextOf('   \n\n\t\n'), '');
  });
});

describe('countWords', () => {
  const cases: Array<[string, string, number]> = [
    ['plain English', 'The quick brown fox jumps over the lazy dog.', 9],
    ['apostrophes and hyphens join words', "I don't think it's state-of-the-art.", 5],
    ['typographic apostrophe', 'It’s rock’n’roll', 2],
    ['runs of only apostrophes or hyphens', "-- ' ’ - well - known --", 2],
    ['numbers', 'Version 2 has 42 fixes', 5],
    // The contract's word characters exclude '.', so a decimal is two words.
    ['decimal point splits', 'pi is 3.14', 4],
    ['Cyrillic', 'Привет, как дела?', 3],
    ['Greek', 'Καλημέρα κόσμε', 2],
    ['Arabic', 'مرحبا بالعالم', 2],
    ['precomposed accents', 'Café crème brûlée', 3],
    ['combining marks stay inside the word', 'Cafe\u0301 cre\u0300me bru\u0302le\u0301e', 3],
    ['Chinese, one word per ideograph', '我爱北京', 4],
    ['Chinese punctuation is not a word', '你好，世界！', 4],
    ['Japanese kanji and kana', '日本語です', 5],
    ['Katakana', 'カタカナ', 4],
    ['Korean, one word per syllable', '안녕하세요 세계', 7],
    ['Latin next to CJK', 'hello世界', 3],
    ['mixed scripts', 'Tokyo東京2024年 Москва Αθήνα', 7],
    ['emoji are not words', 'Ship it 🚀🎉 ❤️', 2],
    ['empty', '', 0],
    ['whitespace only', ' \n\t\u00a0', 0],
    ['a lone combining mark is not a word', '\u0301', 0],
  ];
  for (const [name, text, expected] of cases) {
    it(name, () => assert.equal(countWords(text), expected));
  }
});

describe('countCharacters', () => {
  const cases: Array<[string, string, number]> = [
    ['excludes whitespace', 'The quick brown fox jumps over the lazy dog.', 36],
    ['Cyrillic with punctuation', 'Привет, как дела?', 15],
    ['Greek', 'Καλημέρα κόσμε', 13],
    ['Arabic', 'مرحبا بالعالم', 12],
    ['combining marks are code points of their own', 'Cafe\u0301 cre\u0300me', 11],
    ['CJK', '你好，世界！', 6],
    ['astral emoji count once, not per UTF-16 unit', 'Ship it 🚀🎉', 8],
    ['all Unicode whitespace is excluded', 'a\u00a0b\u2003c\u3000d\n\te', 5],
    ['empty', '', 0],
  ];
  for (const [name, text, expected] of cases) {
    it(name, () => assert.equal(countCharacters(text), expected));
  }
});

describe('readTimeMinutes', () => {
  const cases: Array<[number, number, number, string]> = [
    [0, 0, 0, 'nothing to read'],
    [1, 0, 1, '0.2 s still rounds up to the 1 minute floor'],
    [275, 0, 1, '60 s'],
    [412, 0, 1, '89.89 s'],
    [413, 0, 2, '90.11 s'],
    [550, 0, 2, '120 s'],
    [687, 0, 2, '149.89 s'],
    [688, 0, 3, '150.11 s'],
    [0, 1, 1, '12 s'],
    [0, 2, 1, '12 + 11 = 23 s'],
    [0, 10, 1, '12 + 11 + … + 3 = 75 s'],
    [0, 12, 1, '75 + 3 + 3 = 81 s'],
    [0, 14, 1, '75 + 4 × 3 = 87 s'],
    [0, 15, 2, '75 + 5 × 3 = 90 s exactly, half rounds up'],
    [55, 11, 2, '12 s of words + 78 s of images = 90 s exactly'],
    [54, 11, 1, '11.78 s of words + 78 s of images = 89.78 s'],
    [2750, 0, 10, '600 s'],
    [2750, 20, 12, '600 + 75 + 10 × 3 = 705 s'],
  ];
  for (const [words, images, expected, why] of cases) {
    it(`${words} words and ${images} images → ${expected} min (${why})`, () => {
      assert.equal(readTimeMinutes(words, images), expected);
    });
  }

  it('rejects counts that are not non-negative integers', () => {
    assert.throws(() => readTimeMinutes(-1, 0), RangeError);
    assert.throws(() => readTimeMinutes(0, 1.5), RangeError);
    assert.throws(() => readTimeMinutes(Number.NaN, 0), RangeError);
  });
});

describe('textStats', () => {
  it('counts an English article', () => {
    assert.deepEqual(textStats('# Hello\n\nThe *quick* brown fox.'), {
      plainText: 'Hello\nThe quick brown fox.',
      wordCount: 5,
      characterCount: 22,
      imageCount: 0,
      readTimeMinutes: 1,
    });
  });

  it('counts nothing for empty input', () => {
    assert.deepEqual(textStats(''), {
      plainText: '',
      wordCount: 0,
      characterCount: 0,
      imageCount: 0,
      readTimeMinutes: 0,
    });
  });

  it('gives an images-only article one minute', () => {
    assert.deepEqual(textStats('![a](a.png)\n\n![b][b]\n\n[b]: b.png'), {
      plainText: '',
      wordCount: 0,
      characterCount: 0,
      imageCount: 2,
      readTimeMinutes: 1,
    });
  });

  it('counts the cover image as one more image', () => {
    assert.equal(textStats('', { hasCoverImage: true }).imageCount, 1);
    assert.equal(textStats('', { hasCoverImage: true }).readTimeMinutes, 1);
    assert.equal(textStats('![a](a.png)', { hasCoverImage: true }).imageCount, 2);
    assert.equal(textStats('![a](a.png)', { hasCoverImage: false }).imageCount, 1);
  });

  it('excludes image alt text and URLs from words but counts the image', () => {
    const stats = textStats('Look ![a cute cat](https://example.com/cat.png) here');
    assert.equal(stats.wordCount, 2);
    assert.equal(stats.characterCount, 8);
    assert.equal(stats.imageCount, 1);
  });

  it('counts an image wrapped in a link once and its alt-text images not at all', () => {
    assert.equal(textStats('[![badge](b.svg)](https://ci.example.com)').imageCount, 1);
    assert.equal(textStats('![outer ![inner](i.png)](o.png)').imageCount, 1);
  });

  it('does not count <img> in raw HTML as an image', () => {
    assert.equal(textStats('<img src="x.png" alt="x">').imageCount, 0);
  });

  it('counts link labels, not URLs, and nothing for autolinks', () => {
    assert.equal(
      textStats('Read [the docs](https://example.com/a-b-c) or <https://example.com/x-y>').wordCount,
      4,
    );
  });

  it('counts words in inline code and fenced code blocks', () => {
    assert.equal(textStats('Run `npm test` first.\n\n```sh\nnpm run build --prod\n```').wordCount, 8);
  });

  it('excludes HTML tags and HTML blocks', () => {
    assert.equal(
      textStats('Hello <span title="no words here">there</span>\n\n<div>\nhidden\n</div>').wordCount,
      2,
    );
  });

  it('counts tables cell by cell without merging adjacent cells', () => {
    const stats = textStats('| Name | Age |\n| --- | --- |\n| Ann | 30 |\n| Bob | 41 |');
    assert.equal(stats.wordCount, 6);
    assert.equal(stats.characterCount, 17);
  });

  it('counts nested lists and block quotes', () => {
    assert.equal(textStats('- one\n- two\n  - two-point-one\n  - two b\n- three').wordCount, 6);
    assert.equal(textStats('> Quoted text\n> continues here\n\nAfter').wordCount, 5);
  });

  it('never merges words of adjacent blocks', () => {
    assert.equal(textStats('# Head\nPara').wordCount, 2);
    assert.equal(textStats('Title\n=====\nBody').wordCount, 2);
    assert.equal(textStats('```\nfoo\nbar\n```\nbaz').wordCount, 3);
  });

  it('decodes entities before counting', () => {
    const stats = textStats('Tom &amp; Jerry &lt;3 &copy; 2024');
    assert.equal(stats.plainText, 'Tom & Jerry <3 © 2024');
    assert.equal(stats.wordCount, 4);
    assert.equal(stats.characterCount, 16);
    // &nbsp; decodes to U+00A0, which separates words and is not a character.
    assert.equal(textStats('a&nbsp;b').wordCount, 2);
    assert.equal(textStats('a&nbsp;b').characterCount, 2);
  });

  it('counts CJK and emoji content', () => {
    const stats = textStats('## 日本語です\n\n你好，世界！ 🎉');
    assert.equal(stats.wordCount, 9);
    assert.equal(stats.characterCount, 12);
  });

  it('derives reading time from words and images', () => {
    assert.equal(textStats('word '.repeat(412)).readTimeMinutes, 1);
    assert.equal(textStats('word '.repeat(413)).readTimeMinutes, 2);
    assert.equal(textStats('![a](a.png)\n'.repeat(15)).readTimeMinutes, 2);
    assert.equal(textStats('![a](a.png)\n'.repeat(14), { hasCoverImage: true }).readTimeMinutes, 2);
  });
});

describe('summarize', () => {
  it('collapses whitespace and returns short text unchanged', () => {
    assert.equal(summarize('  Hello \n\n world\t '), 'Hello world');
    assert.equal(summarize('abcde', 5), 'abcde');
  });

  it('cuts at the last word boundary and counts the ellipsis in the limit', () => {
    assert.equal(summarize('The quick brown fox jumps', 15), 'The quick…');
    assert.equal(summarize('The quick brown fox', 16), 'The quick brown…');
    assert.equal(summarize('The quick brown fox', 15), 'The quick…');
  });

  it('defaults to 160 code points', () => {
    const text = 'word '.repeat(100);
    const expected = Array(32).fill('word').join(' ') + '…';
    assert.equal(summarize(text), expected);
    assert.equal(codePointLength(expected), 160);
  });

  it('hard-cuts a single word longer than the limit', () => {
    assert.equal(summarize('Supercalifragilistic', 8), 'Superca…');
    assert.equal(summarize('Supercalifragilistic', 1), '…');
  });

  it('keeps hyphenated words and contractions whole', () => {
    assert.equal(summarize('a state-of-the-art tool', 12), 'a…');
    assert.equal(summarize("we don't stop", 8), 'we…');
  });

  it('may end on punctuation, which is a word boundary', () => {
    assert.equal(summarize('Hello, world and more', 10), 'Hello,…');
  });

  it('treats every CJK character as a word', () => {
    assert.equal(summarize('这是一个很长的中文句子没有空格', 8), '这是一个很长的…');
    assert.equal(summarize('中文 这是一个很长的中文句子', 10), '中文 这是一个很长…');
  });

  it('never splits a surrogate pair or a combining sequence', () => {
    const emoji = summarize('😀'.repeat(10), 5);
    assert.equal(emoji, '😀😀😀😀…');
    assert.equal(emoji.isWellFormed(), true);
    assert.equal(summarize('e\u0301'.repeat(6), 4), 'e\u0301…');
  });

  it('rejects a limit below 1', () => {
    assert.throws(() => summarize('text', 0), RangeError);
    assert.throws(() => summarize('text', 2.5), RangeError);
  });
});

describe('properties', () => {
  const interestingChar = fc.constantFrom(
    'a',
    'Z',
    'é',
    '\u0301',
    '-',
    "'",
    '’',
    '7',
    'ж',
    'ع',
    '日',
    'ん',
    'カ',
    'ー',
    '한',
    '😀',
    '\uFE0F',
    ' ',
    '\n',
    '\u00a0',
    '.',
    ',',
    '…',
  );
  const interestingText = fc.oneof(
    fc.string({ unit: interestingChar, maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
  );

  it('word counts add up across a space', () => {
    fc.assert(
      fc.property(interestingText, interestingText, (a, b) => {
        assert.equal(countWords(a + ' ' + b), countWords(a) + countWords(b));
      }),
    );
  });

  it('counts each ideograph, kana or syllable as one word', () => {
    const cjk = fc.string({
      unit: fc.constantFrom('日', '本', '語', 'で', 'す', 'カ', 'ナ', '한', '국'),
      maxLength: 30,
    });
    fc.assert(
      fc.property(cjk, (text) => {
        assert.equal(countWords(text), codePointLength(text));
      }),
    );
  });

  it('character count ignores added whitespace', () => {
    const whitespace = fc.string({
      unit: fc.constantFrom(' ', '\n', '\t', '\u00a0', '\u3000'),
      maxLength: 3,
    });
    fc.assert(
      fc.property(interestingText, fc.array(whitespace, { maxLength: 41 }), (text, gaps) => {
        const spread = Array.from(text)
          .map((char, i) => (gaps[i] ?? '') + char)
          .join('');
        assert.equal(countCharacters(spread + (gaps[40] ?? '')), countCharacters(text));
        assert.ok(countCharacters(text) <= codePointLength(text));
      }),
    );
  });

  it('summaries fit the limit and are prefixes of the collapsed text', () => {
    fc.assert(
      fc.property(interestingText, fc.integer({ min: 1, max: 50 }), (text, maxLength) => {
        const collapsed = text.replace(/\s+/gu, ' ').trim();
        const summary = summarize(text, maxLength);
        assert.ok(codePointLength(summary) <= maxLength);
        assert.equal(summary.isWellFormed(), true);
        if (codePointLength(collapsed) <= maxLength) {
          assert.equal(summary, collapsed);
        } else {
          assert.ok(summary.endsWith('…'));
          assert.ok(collapsed.startsWith(summary.slice(0, -1)));
        }
      }),
    );
  });

  it('reading time is monotonic and zero only for an empty article', () => {
    const count = fc.integer({ min: 0, max: 5000 });
    fc.assert(
      fc.property(count, count, count, count, (words, images, moreWords, moreImages) => {
        const base = readTimeMinutes(words, images);
        assert.ok(readTimeMinutes(words + moreWords, images + moreImages) >= base);
        assert.equal(base === 0, words === 0 && images === 0);
      }),
    );
  });

  it('paragraphs of plain words count as the sum of their words', () => {
    const word = fc.stringMatching(/^[a-z]{1,8}$/);
    const paragraph = fc.array(word, { minLength: 1, maxLength: 20 });
    fc.assert(
      fc.property(fc.array(paragraph, { minLength: 1, maxLength: 5 }), (paragraphs) => {
        const markdown = paragraphs.map((words) => words.join(' ')).join('\n\n');
        const expected = paragraphs.reduce((sum, words) => sum + words.length, 0);
        assert.equal(textStats(markdown).wordCount, expected);
      }),
    );
  });
});
