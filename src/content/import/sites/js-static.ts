// A site's JavaScript or TypeScript configuration (eleventy.config.js, *.11tydata.js,
// astro.config.mjs, content.config.ts, rss.xml.js) read as data, never run: importing it would run
// the site's code (and its imports, which Folio does not have). The file is parsed with acorn (a
// small, dependency-free ECMAScript parser, already installed for ESLint) and only literal values
// are read: strings, numbers, booleans, null, template strings without expressions, arrays and
// objects of them. Anything else (a variable, an environment variable, a call) is a `Computed`
// value with its line, so that a profile can warn `config-not-read` where it needed it.
//
// TypeScript is parsed as JavaScript first (content.config.ts rarely holds a type); only when that
// fails are its types stripped by Node's own stripper (node:module stripTypeScriptTypes, which keeps
// every position) and the result parsed again.
import { stripTypeScriptTypes } from 'node:module';
import { type Node, parse } from 'acorn';
import { join } from 'node:path';
import { readText } from '../markdown-folder.ts';
import type { ImportProblem } from '../records.ts';

/** A value the source computes: its line, and the source text that computes it. */
export interface Computed {
  computed: true;
  line: number;
  text: string;
}

export type StaticValue =
  string | number | boolean | null | StaticValue[] | { [key: string]: StaticValue } | Computed;

export interface JsModule {
  file: string;
  text: string;
  program: Node;
}

type AnyNode = Node & Record<string, unknown>;

export function isComputed(value: unknown): value is Computed {
  return typeof value === 'object' && value !== null && (value as { computed?: unknown }).computed === true;
}

function tryParse(text: string): Node | SyntaxError {
  try {
    return parse(text, { ecmaVersion: 'latest', sourceType: 'module', locations: true, allowHashBang: true });
  } catch (error) {
    if (error instanceof SyntaxError) return error;
    throw error;
  }
}

/** Parses a module; a file that is not JavaScript (or erasable TypeScript) is a problem with its line. */
export function parseJsModule(file: string, text: string): { module: JsModule } | { problem: ImportProblem } {
  let program = tryParse(text);
  if (program instanceof SyntaxError && /\.(c|m)?tsx?$/.test(file)) {
    try {
      program = tryParse(quietly(() => stripTypeScriptTypes(text, { mode: 'strip' })));
    } catch {
      // Not erasable TypeScript (an enum, a namespace): the JavaScript parser's error is the one reported.
    }
  }
  if (program instanceof SyntaxError) {
    const line = (program as SyntaxError & { loc?: { line: number } }).loc?.line ?? 1;
    const reason = program.message.replace(/\s*\(\d+:\d+\)$/, '');
    return {
      problem: {
        file,
        line,
        kind: 'config-not-read',
        message: `cannot be read as JavaScript (${reason}): its values are not used`,
      },
    };
  }
  return { module: { file, text, program } };
}

export function lineOf(node: Node): number {
  return node.loc?.start.line ?? 1;
}

function sourceOf(module: JsModule, node: Node): string {
  return module.text.slice(node.start, node.end);
}

/** The key of a non-computed property (`a`, `'a'`), or null. */
function keyOf(property: AnyNode): string | null {
  if (property.computed === true) return null;
  const key = property['key'] as AnyNode;
  if (key.type === 'Identifier') return key['name'] as string;
  if (key.type === 'Literal' && (typeof key['value'] === 'string' || typeof key['value'] === 'number'))
    return String(key['value']);
  return null;
}

/** The literal value a node writes, or `Computed` with its line. */
export function staticValue(module: JsModule, node: Node): StaticValue {
  const n = node as AnyNode;
  const computed = (): Computed => ({ computed: true, line: lineOf(node), text: sourceOf(module, node) });
  switch (n.type) {
    case 'Literal':
      return n['regex'] !== undefined || typeof n['value'] === 'bigint'
        ? computed()
        : (n['value'] as StaticValue);
    case 'TemplateLiteral': {
      const quasis = n['quasis'] as AnyNode[];
      if ((n['expressions'] as Node[]).length > 0) return computed();
      return (quasis[0]['value'] as { cooked: string }).cooked;
    }
    case 'UnaryExpression': {
      const inner = staticValue(module, n['argument'] as Node);
      return n['operator'] === '-' && typeof inner === 'number' ? -inner : computed();
    }
    case 'ArrayExpression':
      return (n['elements'] as (Node | null)[]).map((element) =>
        element === null || element.type === 'SpreadElement' ? computed() : staticValue(module, element),
      );
    case 'ObjectExpression':
      return objectValue(module, n);
    default:
      return computed();
  }
}

function objectValue(module: JsModule, node: AnyNode): StaticValue {
  const out: Record<string, StaticValue> = {};
  for (const property of node['properties'] as AnyNode[]) {
    if (property.type !== 'Property') continue;
    const key = keyOf(property);
    if (key === null) continue;
    const value = property['value'] as Node;
    out[key] =
      property['kind'] !== 'init'
        ? { computed: true, line: lineOf(value), text: key }
        : staticValue(module, value);
  }
  return out;
}

/** Every node of the tree, depth first, in source order. */
export function* walk(node: Node): Generator<AnyNode> {
  const n = node as AnyNode;
  yield n;
  for (const [key, value] of Object.entries(n)) {
    if (key === 'loc') continue;
    if (Array.isArray(value)) {
      for (const child of value) if (isNode(child)) yield* walk(child);
    } else if (isNode(value)) yield* walk(value);
  }
}

function isNode(value: unknown): value is Node {
  return (
    typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string'
  );
}

/** The name a call is made by: `glob(…)` → `glob`, `eleventyConfig.addPlugin(…)` → `addPlugin`. */
export function calleeName(call: AnyNode): string | null {
  const callee = call['callee'] as AnyNode;
  if (callee.type === 'Identifier') return callee['name'] as string;
  if (callee.type === 'MemberExpression' && callee.computed !== true)
    return ((callee['property'] as AnyNode)['name'] as string | undefined) ?? null;
  return null;
}

/** The calls of the module made by one of `names`, in source order. */
export function callsNamed(module: JsModule, names: readonly string[]): AnyNode[] {
  return [...walk(module.program)].filter(
    (node) => node.type === 'CallExpression' && names.includes(calleeName(node) ?? ''),
  );
}

/** The call's arguments as static values. */
export function callArguments(module: JsModule, call: AnyNode): StaticValue[] {
  return (call['arguments'] as Node[]).map((argument) => staticValue(module, argument));
}

/**
 * The module's exported value: `export default <value>` (through `defineConfig(<value>)`), or
 * `module.exports = <value>`, or `export const <name> = <value>` when `name` is given. A function
 * gives the object it returns (the older `.eleventy.js` form).
 */
export function exportedNode(module: JsModule, name = 'default'): Node | null {
  for (const node of (module.program as AnyNode)['body'] as AnyNode[]) {
    if (name === 'default' && node.type === 'ExportDefaultDeclaration')
      return unwrap(module, node['declaration'] as Node);
    if (name !== 'default' && node.type === 'ExportNamedDeclaration') {
      const declaration = node['declaration'] as AnyNode | null;
      for (const declarator of (declaration?.['declarations'] as AnyNode[] | undefined) ?? []) {
        const id = declarator['id'] as AnyNode;
        if (id['name'] === name && declarator['init']) return unwrap(module, declarator['init'] as Node);
      }
    }
    if (node.type === 'ExpressionStatement') {
      const expression = node['expression'] as AnyNode;
      if (expression.type !== 'AssignmentExpression') continue;
      const target = sourceOf(module, expression['left'] as Node);
      const wanted = name === 'default' ? 'module.exports' : `module.exports.${name}`;
      if (target === wanted) return unwrap(module, expression['right'] as Node);
    }
  }
  return null;
}

/** Through `defineConfig(x)` and a local `const x = …` to the value itself. */
function unwrap(module: JsModule, node: Node): Node {
  const n = node as AnyNode;
  if (n.type === 'CallExpression' && calleeName(n) === 'defineConfig') {
    const [first] = n['arguments'] as Node[];
    return first === undefined ? node : unwrap(module, first);
  }
  if (n.type === 'Identifier') {
    const declared = localConst(module, n['name'] as string);
    if (declared !== null) return unwrap(module, declared);
  }
  return node;
}

function localConst(module: JsModule, name: string): Node | null {
  for (const node of walk(module.program)) {
    if (node.type !== 'VariableDeclarator') continue;
    const id = node['id'] as AnyNode;
    if (id.type === 'Identifier' && id['name'] === name && node['init']) return node['init'] as Node;
  }
  return null;
}

/** The object a function returns at its top level (`return { dir: … }`), or null. */
export function returnedObject(fn: Node): Node | null {
  const n = fn as AnyNode;
  if (!['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression'].includes(n.type)) return null;
  const body = n['body'] as AnyNode;
  if (body.type !== 'BlockStatement') return body;
  for (const statement of body['body'] as AnyNode[]) {
    if (statement.type === 'ReturnStatement' && statement['argument']) return statement['argument'] as Node;
  }
  return null;
}

/** A nested property of a static value: `at(config, 'dir', 'input')`; undefined when absent. */
export function at(value: StaticValue | undefined, ...keys: string[]): StaticValue | undefined {
  let current: StaticValue | undefined = value;
  for (const key of keys) {
    if (current === undefined || current === null || typeof current !== 'object' || Array.isArray(current))
      return undefined;
    if (isComputed(current)) return current;
    current = (current as Record<string, StaticValue>)[key];
  }
  return current;
}

/** The source text of a node (a callback's body, for a rule a profile recognises by its words). */
export function textOf(module: JsModule, node: Node): string {
  return sourceOf(module, node);
}

/**
 * Runs `work` without Node's one-time "stripTypeScriptTypes is an experimental feature" warning,
 * which would otherwise be printed on stderr in the middle of `folio import`'s output.
 */
function quietly<T>(work: () => T): T {
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (String(warning).includes('stripTypeScriptTypes')) return;
    (emit as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return work();
  } finally {
    process.emitWarning = emit;
  }
}

/** A JavaScript config parsed, or null after the warning (`config-not-read`) that it could not be read. */
export async function readJsModule(
  root: string,
  file: string,
  warnings: ImportProblem[],
): Promise<JsModule | null> {
  const problems: ImportProblem[] = [];
  const text = await readText(join(root, ...file.split('/')), file, problems);
  if (text === null) {
    warnings.push(...problems.map((problem) => ({ ...problem, kind: 'config-not-read' })));
    return null;
  }
  const parsed = parseJsModule(file, text);
  if ('problem' in parsed) {
    warnings.push(parsed.problem);
    return null;
  }
  return parsed.module;
}

/** The warning for a value the import needs that the config computes: the config is never run. */
export function configNotRead(file: string, value: Computed, what: string): ImportProblem {
  return {
    file,
    line: value.line,
    kind: 'config-not-read',
    message: `${what} is computed (${value.text.slice(0, 80)}), not written: it cannot be read without running the site's code`,
  };
}
