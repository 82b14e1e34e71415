// Builds the installable client into dist/ (run by `npm pack` through `prepack`): ESM JavaScript and
// declarations that import nothing outside the package. The server's types reach the client through
// src/server-types.ts only; here the type checker resolves each of its exports to the plain type it
// stands for, so that the package carries the API's shapes written out, with no Folio checkout and
// no `typebox` needed by whoever installs it.
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import ts from 'typescript';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const sourceDir = join(packageDir, 'src');
const distDir = join(packageDir, 'dist');
const serverTypesFile = 'server-types.ts';

/** Each export of server-types.ts as `export type Name = <the plain type>;`, formatted. */
export async function plainServerTypes(): Promise<string> {
  const file = join(sourceDir, serverTypesFile);
  const program = ts.createProgram([file], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    allowImportingTsExtensions: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  });
  const source = program.getSourceFile(file)!;
  // Only this file's errors: the server's own files are type-checked by the repository's check.
  const errors = ts.getPreEmitDiagnostics(program, source);
  if (errors.length > 0) throw new Error(`${serverTypesFile} does not type-check:\n${describe(errors)}`);
  const checker = program.getTypeChecker();
  const printer = ts.createPrinter();
  const flags =
    ts.NodeBuilderFlags.NoTruncation | ts.NodeBuilderFlags.InTypeAlias | ts.NodeBuilderFlags.IgnoreErrors;
  const declarations = checker.getExportsOfModule(checker.getSymbolAtLocation(source)!).map((exported) => {
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const node = checker.typeToTypeNode(checker.getDeclaredTypeOfSymbol(symbol), undefined, flags);
    if (!node || hasImport(node)) throw new Error(`${exported.name} cannot be written as a plain type`);
    const comment = ts.displayPartsToString(exported.getDocumentationComment(checker));
    const doc = comment ? `/** ${comment} */\n` : '';
    const text = printer.printNode(ts.EmitHint.Unspecified, withoutOptionalUndefined(node), source);
    return `${doc}export type ${exported.name} = ${text};`;
  });
  const text = [
    '// The API shapes, written out by scripts/build.ts from the Folio server schemas this client was',
    '// built with (src/server-types.ts in the repository). Do not edit.',
    ...declarations,
  ].join('\n');
  const options = (await prettier.resolveConfig(join(packageDir, '..', '..', 'package.json'))) ?? {};
  return prettier.format(text, { ...options, parser: 'typescript' });
}

// `title?: string | undefined` says `title?: string` twice: without exactOptionalPropertyTypes they
// are the same type, and the shorter one reads better.
function withoutOptionalUndefined<T extends ts.Node>(node: T): T {
  const transformer: ts.TransformerFactory<T> = (context) => (root) => {
    const visit = (child: ts.Node): ts.Node => {
      if (
        ts.isPropertySignature(child) &&
        child.questionToken &&
        child.type &&
        ts.isUnionTypeNode(child.type)
      ) {
        const kept = child.type.types.filter((member) => member.kind !== ts.SyntaxKind.UndefinedKeyword);
        const type = kept.length === 1 ? kept[0] : ts.factory.createUnionTypeNode(kept);
        child = ts.factory.updatePropertySignature(
          child,
          child.modifiers,
          child.name,
          child.questionToken,
          type,
        );
      }
      if (ts.isTypeLiteralNode(child)) {
        child = ts.factory.updateTypeLiteralNode(
          child,
          ts.factory.createNodeArray(inReadingOrder(child.members)),
        );
      }
      return ts.visitEachChild(child, visit, context);
    };
    return visit(root) as T;
  };
  return ts.transform(node, [transformer]).transformed[0];
}

// The checker lists properties in the order it met them, which changes from one build to the next:
// `id` first, then the others alphabetically, is the same every time and easy to look up.
function inReadingOrder(members: ts.NodeArray<ts.TypeElement>): ts.TypeElement[] {
  const name = ({ name }: ts.TypeElement) => {
    const text = name && (ts.isIdentifier(name) || ts.isStringLiteral(name)) ? name.text : '';
    return text === 'id' ? '' : text;
  };
  return [...members].sort((a, b) => (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0));
}

// A type the checker could only name through an import (`import("...").X`) would point outside the
// package: the build refuses it rather than ship a declaration that cannot resolve.
function hasImport(node: ts.Node): boolean {
  return ts.isImportTypeNode(node) || (ts.forEachChild(node, hasImport) ?? false);
}

/** Compiles src/ (with the plain server types) to dist/: ES2022 modules and their declarations. */
export function compile(serverTypes: string, outDir: string): void {
  const stage = mkdtempSync(join(tmpdir(), 'folio-client-'));
  try {
    const files = readdirSync(sourceDir).filter((name) => name.endsWith('.ts') && name !== serverTypesFile);
    for (const name of files) cpSync(join(sourceDir, name), join(stage, name));
    writeFileSync(join(stage, serverTypesFile), serverTypes);
    const program = ts.createProgram(
      [...files, serverTypesFile].map((name) => join(stage, name)),
      {
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ES2022,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
        types: [],
        strict: true,
        skipLibCheck: true,
        declaration: true,
        rewriteRelativeImportExtensions: true,
        allowImportingTsExtensions: true,
        verbatimModuleSyntax: true,
        rootDir: stage,
        outDir,
        newLine: ts.NewLineKind.LineFeed,
      },
    );
    // Declarations keep the `.ts` of relative imports (only JavaScript has them rewritten): a
    // consumer resolves `./errors.js` to errors.d.ts, so they get the same `.js`.
    const result = program.emit(undefined, (fileName, text) => {
      const fixed = fileName.endsWith('.d.ts') ? text.replace(/(from '\.\/[\w-]+)\.ts'/g, "$1.js'") : text;
      ts.sys.writeFile(fileName, fixed);
    });
    const errors = [...ts.getPreEmitDiagnostics(program), ...result.diagnostics];
    if (errors.length > 0) throw new Error(`the client does not compile:\n${describe(errors)}`);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

function describe(diagnostics: readonly ts.Diagnostic[]): string {
  return ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (name) => name,
    getCurrentDirectory: () => packageDir,
    getNewLine: () => '\n',
  });
}

if (import.meta.main && process.argv.includes('--clean')) {
  // After `npm pack`: the checkout keeps no build output for the linter and type check to trip on.
  rmSync(distDir, { recursive: true, force: true });
} else if (import.meta.main) {
  const serverTypes = await plainServerTypes();
  rmSync(distDir, { recursive: true, force: true });
  compile(serverTypes, distDir);
  console.log(`@folio/client built into ${distDir}`);
}
