// Every field of a Ghost post and of its posts_meta row is used, mapped, or reported: a field that
// holds a value Folio has no place for is an `unmapped-field` warning at its line. Fields that hold nothing a reader sees (ids, Ghost's derived plaintext, email delivery
// settings) and fields at Ghost's default (`featured: 0`, a null caption) say nothing and are not
// reported, so that the report lists only what is really left behind.
import type { Path } from './check-kit.ts';
import type { ImportProblem } from './records.ts';

type GhostRow = Record<string, unknown>;

/** Post fields the importer reads (Ghost 1–3 kept the SEO fields on the post itself). */
const POST_READ = [
  'id',
  'title',
  'slug',
  'html',
  'feature_image',
  'type',
  'status',
  'visibility',
  'created_at',
  'updated_at',
  'published_at',
  'custom_excerpt',
  'canonical_url',
  'author_id',
  'meta_title',
  'meta_description',
  'og_image',
  'feature_image_alt',
];

/**
 * Post fields that hold nothing a reader of the site sees: Ghost's internal ids and editors' user
 * ids, the sources `html` is rendered from (mobiledoc, lexical: checked apart, when html is
 * missing), the plain text derived from html, and email delivery settings (Folio sends no email).
 */
const POST_IGNORED = [
  'uuid',
  'comment_id',
  'plaintext',
  'mobiledoc',
  'lexical',
  'created_by',
  'updated_by',
  'published_by',
  'email_recipient_filter',
  'newsletter_id',
];

const META_READ = ['id', 'post_id', 'meta_title', 'meta_description', 'og_image', 'feature_image_alt'];

/** Ghost's defaults: a field holding one of them changes nothing a reader sees. */
const DEFAULTS: Record<string, readonly unknown[]> = {
  featured: [0, false],
  show_title_and_feature_image: [1, true],
  email_only: [0, false],
};

/** Why Folio cannot keep a field, where that is worth saying. */
const WHY: Record<string, string> = {
  featured: 'Folio has no featured flag',
  feature_image_caption: 'Folio keeps no caption for the cover image',
  codeinjection_head: 'Folio serves content, not page code',
  codeinjection_foot: 'Folio serves content, not page code',
  custom_template: 'Folio serves content, not theme templates',
};

function holdsValue(name: string, value: unknown): boolean {
  if (value === undefined || value === null || value === '') return false;
  return !(DEFAULTS[name] ?? []).includes(value);
}

export interface UnmappedCheck {
  file: string;
  warnings: ImportProblem[];
  locate: (path: Path) => number;
  /** The post's slug (or index), to name it in the message. */
  post: string;
}

function warnUnmapped(check: UnmappedCheck, table: string, row: GhostRow, path: Path, read: string[]): void {
  for (const [name, value] of Object.entries(row)) {
    if (read.includes(name) || POST_IGNORED.includes(name) || !holdsValue(name, value)) continue;
    const why = WHY[name] ?? 'Folio has no such field';
    check.warnings.push({
      file: check.file,
      line: check.locate([...path, name]),
      kind: 'unmapped-field',
      message: `post ${check.post}: ${table}.${name} is not imported: ${why}`,
    });
  }
}

/** Warns about each field of the post and of its posts_meta row that holds a value Folio does not keep. */
export function warnUnmappedFields(
  check: UnmappedCheck,
  post: { row: GhostRow; path: Path },
  meta: { row: GhostRow; path: Path } | undefined,
): void {
  warnUnmapped(check, 'posts', post.row, post.path, POST_READ);
  if (meta !== undefined) warnUnmapped(check, 'posts_meta', meta.row, meta.path, META_READ);
  const html = post.row['html'];
  if (typeof html === 'string' && html.trim() !== '') return;
  // Ghost renders html from the editor's document on every save; an export without it (a
  // hand-made or a very old one) has its text only there, which Folio does not render.
  for (const editor of ['lexical', 'mobiledoc']) {
    if (!holdsValue(editor, post.row[editor])) continue;
    check.warnings.push({
      file: check.file,
      line: check.locate([...post.path, editor]),
      kind: 'unmapped-field',
      message: `post ${check.post}: has no html, and its ${editor} document is not imported: the article is empty (export again from Ghost 5, which writes html)`,
    });
  }
}
