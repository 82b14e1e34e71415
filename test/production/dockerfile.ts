// The Docker image's file layout, built without Docker: the Dockerfile is read instruction by
// instruction and replayed in temporary folders (one per stage, its WORKDIR standing for /app), so
// that what the image holds is decided by the Dockerfile alone, never by a list in a test.
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, posix, relative } from 'node:path';

export interface Instruction {
  name: string;
  args: string;
}

export interface ImageLayout {
  /** The last stage's WORKDIR: what /app holds in the image. */
  directory: string;
  env: Record<string, string>;
  /** ENTRYPOINT then CMD, as the image runs them. */
  command: string[];
}

/** The instructions, continuation lines joined, comments and parser directives left out. */
export function parseDockerfile(text: string): Instruction[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const space = line.indexOf(' ');
      return { name: line.slice(0, space).toUpperCase(), args: line.slice(space + 1).trim() };
    });
}

/** Whether `.dockerignore` leaves `path` (relative to the build context, with `/`) out. */
export function dockerIgnores(patterns: string[], path: string): boolean {
  let ignored = false;
  for (const raw of patterns) {
    const negated = raw.startsWith('!');
    const pattern = posix.normalize((negated ? raw.slice(1) : raw).replace(/^\//, ''));
    const source = pattern
      .split('/')
      .map((part) =>
        part === '**' ? '.*' : part.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*'),
      )
      .join('/')
      .replace(/\.\*\//g, '(?:.*/)?');
    // A pattern that names a folder leaves out everything in it.
    if (new RegExp(`^${source}(?:/.*)?$`).test(path)) ignored = !negated;
  }
  return ignored;
}

/**
 * Replays `dockerfile` (from `context`) in a new folder under the system's temporary one. RUN
 * commands run in the stage's folder; each command the replay does not know fails it, so a new
 * build step cannot be skipped without anyone deciding how.
 */
export function buildImageLayout(context: string, dockerfile = join(context, 'Dockerfile')): ImageLayout {
  const instructions = parseDockerfile(readFileSync(dockerfile, 'utf8'));
  const ignorePatterns = readFileSync(join(context, '.dockerignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const root = mkdtempSync(join(tmpdir(), 'folio-image-'));
  const stages = new Map<string, string>();
  let stageCount = 0;
  let stage = '';
  let workdir = '';
  let env: Record<string, string> = {};
  let entrypoint: string[] = [];
  let cmd: string[] = [];
  /** A path of the image: absolute ones under WORKDIR, relative ones from it. */
  const inStage = (path: string, from = stage) => {
    if (!isAbsolute(path)) return join(from, path);
    const inside = posix.relative(workdir, path);
    if (inside.startsWith('..')) throw new Error(`the layout only holds ${workdir}, not ${path}`);
    return join(from, inside);
  };

  try {
    for (const { name, args } of instructions) replay(name, args);
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  return { directory: stage, env, command: [...entrypoint, ...cmd] };

  function replay(name: string, args: string): void {
    switch (name) {
      case 'ARG':
      case 'USER':
      case 'EXPOSE':
      case 'VOLUME':
      case 'HEALTHCHECK':
      case 'LABEL':
        break; // no file of the layout depends on them
      case 'FROM': {
        const [, base, , alias] = args.match(/^(\S+)(\s+AS\s+(\S+))?$/i) ?? [];
        stage = join(root, `stage-${stageCount++}`);
        const parent = base === undefined ? undefined : stages.get(base);
        if (parent) linkTree(parent, stage);
        else mkdirSync(stage, { recursive: true });
        if (alias) stages.set(alias, stage);
        env = {};
        break;
      }
      case 'WORKDIR':
        if (workdir !== '' && args !== workdir) throw new Error(`one WORKDIR for every stage, got ${args}`);
        workdir = args;
        break;
      case 'ENV':
        for (const [, key, value] of args.matchAll(/(\w+)=(\S+)/g)) env[key] = value;
        break;
      case 'COPY':
        copy(args, { context, stages, ignorePatterns, inStage });
        break;
      case 'RUN':
        for (const command of args.split('&&')) run(command.trim(), stage, inStage);
        break;
      case 'ENTRYPOINT':
        entrypoint = JSON.parse(args);
        break;
      case 'CMD':
        cmd = JSON.parse(args);
        break;
      default:
        throw new Error(`the layout replay does not know ${name}`);
    }
  }
}

function copy(
  args: string,
  options: {
    context: string;
    stages: Map<string, string>;
    ignorePatterns: string[];
    inStage: (path: string, from?: string) => string;
  },
): void {
  const words = args.split(/\s+/);
  const from = words[0].startsWith('--from=') ? words.shift()!.slice('--from='.length) : null;
  const destination = words.pop()!;
  const fromStage = from === null ? null : options.stages.get(from);
  if (from !== null && !fromStage) throw new Error(`COPY --from=${from}: no such stage`);
  for (const source of words) {
    // Docker copies a folder's contents to the destination, and files into a destination ending in /.
    const origin = fromStage ? options.inStage(source, fromStage) : join(options.context, source);
    const target = destination.endsWith('/')
      ? join(options.inStage(destination), basename(source))
      : options.inStage(destination);
    if (fromStage) {
      linkTree(origin, target);
      continue;
    }
    cpSync(origin, target, {
      recursive: true,
      filter: (path) => {
        const inContext = relative(options.context, path).split('\\').join('/');
        return inContext === '' || !dockerIgnores(options.ignorePatterns, inContext);
      },
    });
  }
}

/** One command of a RUN line, in the stage's folder, with the Node that runs the tests (first in PATH for npm too). */
function run(command: string, stage: string, inStage: (path: string) => string): void {
  const [program, ...args] = command.split(/\s+/);
  if (program === 'npm' && args[0] === 'ci') {
    // The same install, from the npm cache only (npm ci has filled it): no network in a test.
    try {
      execute('npm', [...args, '--offline'], stage);
    } catch (error) {
      throw new Error('npm ci from the cache failed: run `npm ci` in the checkout first', { cause: error });
    }
  } else if (program === 'npm' && args[0] === 'cache') {
    // Cleaning the cache shrinks an image layer; here it would empty the developer's own cache.
  } else if (program === 'node') {
    execute(process.execPath, args, stage);
  } else if (program === 'rm' && args[0] === '-rf') {
    for (const path of args.slice(1)) rmSync(inStage(path), { recursive: true, force: true });
  } else if (program === 'mkdir') {
    for (const path of args) mkdirSync(inStage(path), { recursive: true });
  } else if (program === 'chown') {
    // Owners are the image's: the layout belongs to whoever runs the test.
  } else {
    throw new Error(`the layout replay does not know the command: ${command}`);
  }
}

function execute(program: string, args: string[], cwd: string): void {
  const result = spawnSync(program, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` },
  });
  if (result.status !== 0) {
    throw new Error(
      `${program} ${args.join(' ')} failed (${result.status}): ${result.stderr}${result.stdout}`,
    );
  }
}

/** A stage's files in another stage, as hard links: a copy at no cost, which neither changes. */
function linkTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) linkTree(source, target);
    else if (entry.isSymbolicLink()) symlinkSync(readlinkSync(source), target);
    else linkSync(source, target);
  }
}
