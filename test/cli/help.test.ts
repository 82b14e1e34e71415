// README.md's commands and the `folio` command's own: every command line of the README's code
// blocks names a command and flags the CLI has, and every command and flag the CLI has is shown in
// one of them, so that neither tells of something the other lacks.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Command } from 'commander';
import { buildCli } from '../../src/cli/main.ts';
import { root } from './support.ts';

/** Flags every command has, said once in the README's prose rather than on every line. */
const everyCommandFlags = new Set(['--help', '--json']);

interface ReadmeLine {
  text: string;
  words: string[];
}

/** The lines of the README's code blocks that run `folio` or `npx folio`, continuations joined. */
function readmeCommandLines(readme: string): ReadmeLine[] {
  const lines: ReadmeLine[] = [];
  let inBlock = false;
  let pending = '';
  for (const raw of readme.split('\n')) {
    if (/^\s*```/.test(raw)) {
      inBlock = !inBlock;
      pending = '';
      continue;
    }
    if (!inBlock) continue;
    const line = pending === '' ? raw.trim() : `${pending} ${raw.trim()}`;
    if (line.endsWith('\\')) {
      pending = line.slice(0, -1).trim();
      continue;
    }
    pending = '';
    const match = /^(?:npx )?folio\s+(.*)$/.exec(line);
    if (match) lines.push({ text: line, words: shellWords(withoutComment(match[1])) });
  }
  return lines;
}

function withoutComment(text: string): string {
  const quoted = /'[^']*'|"[^"]*"/g;
  const bare = text.replace(quoted, (part) => ' '.repeat(part.length));
  const hash = bare.search(/\s#/);
  return hash === -1 ? text : text.slice(0, hash);
}

function shellWords(text: string): string[] {
  return [...text.matchAll(/'[^']*'|"[^"]*"|\S+/g)].map((match) => match[0]);
}

/** The command a line runs (the subcommands its first words name) and the flags it gives. */
function commandOf(program: Command, words: string[]): { command: Command; path: string; flags: string[] } {
  let command = program;
  let index = 0;
  for (; index < words.length; index++) {
    const sub = command.commands.find((candidate) => candidate.name() === words[index]);
    if (sub === undefined) break;
    command = sub;
  }
  const flags = words.slice(index).flatMap((word) => (word.startsWith('--') ? [word.split('=')[0]] : []));
  return { command, path: words.slice(0, index).join(' '), flags };
}

function leafCommands(command: Command, path: string[] = []): Array<{ path: string; command: Command }> {
  return command.commands.flatMap((sub) =>
    sub.commands.length > 0
      ? leafCommands(sub, [...path, sub.name()])
      : [{ path: [...path, sub.name()].join(' '), command: sub }],
  );
}

function flagsOf(command: Command): string[] {
  return command.options.flatMap((option) => (option.long ? [option.long] : []));
}

const readme = readFileSync(join(root, 'README.md'), 'utf8');

test("README's folio command lines name only commands and flags the CLI has", () => {
  const program = buildCli();
  const lines = readmeCommandLines(readme);
  assert.ok(lines.length >= 20, `${lines.length} command lines found`);
  for (const { text, words } of lines) {
    const { command, path, flags } = commandOf(program, words);
    assert.ok(path !== '', `README: \`${text}\` names no folio command`);
    assert.equal(command.commands.length, 0, `README: \`${text}\` names a group, not a command`);
    const known = new Set([...flagsOf(command), ...everyCommandFlags]);
    for (const flag of flags)
      assert.ok(
        known.has(flag),
        `README: \`${text}\`: folio ${path} has no ${flag} (it has ${[...known].join(' ')})`,
      );
  }
});

test("every folio command and flag is shown on one of README's folio command lines", () => {
  const program = buildCli();
  const shown = new Map<string, Set<string>>();
  for (const { words } of readmeCommandLines(readme)) {
    const { path, flags } = commandOf(program, words);
    const flagsShown = shown.get(path) ?? new Set<string>();
    for (const flag of flags) flagsShown.add(flag);
    shown.set(path, flagsShown);
  }
  for (const { path, command } of leafCommands(program)) {
    assert.ok(shown.has(path), `folio ${path} is on no README command line`);
    for (const flag of flagsOf(command)) {
      if (everyCommandFlags.has(flag)) continue;
      assert.ok(shown.get(path)!.has(flag), `folio ${path} ${flag} is on no README command line`);
    }
  }
});

test("the CLI's help says what README says of keys: scopes, --scope, --test; no stale text", () => {
  const program = buildCli();
  const help = (path: string[]) => {
    let command = program;
    for (const name of path) command = command.commands.find((sub) => sub.name() === name)!;
    return command.helpInformation();
  };
  const create = help(['keys', 'create']);
  for (const said of [
    '--scope <names>',
    'read',
    'analytics',
    'write',
    '--test',
    'includeTest=true',
    'Playwright',
  ])
    assert.ok(create.includes(said), `keys create --help lacks ${said}`);
  assert.match(help(['keys', 'list']), /scopes/);
  for (const text of [
    readme,
    program.helpInformation(),
    ...leafCommands(program).map(({ command }) => command.helpInformation()),
  ])
    assert.doesNotMatch(text, /public: tracking only/);
});

test('the README line reader: continuations, comments, quotes, groups and flags', () => {
  const lines = readmeCommandLines(
    [
      'prose folio keys create --ignored',
      '```sh',
      "npx folio projects update my-blog --url-pattern '/:year/#x/' \\",
      '  --author "Rosa # Q"   # a comment --not-a-flag',
      'folio keys list --project=demo',
      'docker run folio migrate',
      '```',
    ].join('\n'),
  );
  assert.deepEqual(
    lines.map(({ words }) => words),
    [
      ['projects', 'update', 'my-blog', '--url-pattern', "'/:year/#x/'", '--author', '"Rosa # Q"'],
      ['keys', 'list', '--project=demo'],
    ],
  );
  const program = buildCli();
  assert.deepEqual(commandOf(program, lines[1].words).flags, ['--project']);
  assert.equal(commandOf(program, lines[0].words).path, 'projects update');
});
