// XML checks for the SEO tests: xmllint (libxml2, strict XML 1.0 and XSD validation) on stdin, and
// fast-xml-parser configured to give back text and attribute values exactly as they were written.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { XMLParser } from 'fast-xml-parser';

/** The sitemaps.org 0.9 schema, copied from shared/schemas so that the tests do not depend on its place. */
export const sitemapXsd = fileURLToPath(new URL('./fixtures/sitemap.xsd', import.meta.url));

export interface LintResult {
  ok: boolean;
  errors: string;
}

/** Runs `xmllint --noout [args] -` with `xml` on stdin: well-formedness, and validity with `--schema`. */
export function xmllint(xml: string, args: string[] = []): LintResult {
  const result = spawnSync('xmllint', ['--noout', '--nonet', ...args, '-'], {
    input: xml,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (result.error) throw new Error(`xmllint could not run (install libxml2-utils): ${result.error.message}`);
  return { ok: result.status === 0, errors: result.stderr };
}

export const xmlParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  trimValues: false,
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: true,
  // Needed for numeric character references (&#xD;); the escaping never writes named HTML entities.
  htmlEntities: true,
  ignoreDeclaration: true,
  isArray: (name) => name === 'url' || name === 'item' || name === 'category',
});
