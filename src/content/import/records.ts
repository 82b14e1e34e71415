// The records every source format turns its input into, and the problems (which stop an import)
// and warnings (which do not) that reading a source reports, each with its file and line.

export interface TagInput {
  name: string;
  /** The source's own slug (Ghost's, a JSON file's); null: derived from the name. */
  slug?: string | null;
  color: string | null;
  icon: string | null;
}

export interface PersonInput {
  name: string;
  image: string | null;
}

/** One of an article's authors, in the source's order; the first is its `author`. */
export interface AuthorInput extends PersonInput {
  /** The source's key or slug (Docusaurus authors.yml key, Ghost slug), else derived from the name. */
  slug: string;
  title: string | null;
  url: string | null;
}

export type Visibility = 'public' | 'members' | 'paid';

/** What a site's configuration says about the project; null: the source does not say. */
export interface SiteSettings {
  siteUrl: string | null;
  /** Tokens :slug, :year, :month, :day, :section. */
  urlPattern: string | null;
  /** IANA name, e.g. Europe/Lisbon. */
  timeZone: string | null;
  defaultAuthor: PersonInput | null;
  logoUrl: string | null;
}

/** How the import treated one file of a site (imported, skipped with a reason, or refused). */
export interface FileReport {
  file: string;
  kind: 'post' | 'draft' | 'excluded' | 'page' | 'skipped';
  reason?: string;
  /** A page's public path (pages are reported, not imported); null when the generator gives none. */
  path?: string | null;
}

export interface SeoInput {
  metaTitle: string | null;
  metaDescription: string | null;
  ogImage: string | null;
  canonicalUrl: string | null;
  keywords: string[] | null;
}

export interface VariantInput {
  key: string;
  title: string | null;
  excerpt: string | null;
  content: string | null;
}

export type ArticleStatus = 'draft' | 'published' | 'archived';

export interface ArticleInput {
  file: string;
  slug: string;
  title: string;
  excerpt: string | null;
  coverImage: string | null;
  status: ArticleStatus;
  publishedAt: string | null;
  createdAt: string | null;
  updatedAt: string | null;
  author: PersonInput | null;
  lastUpdatedBy: PersonInput | null;
  tags: string[];
  seo: SeoInput | null;
  variants: VariantInput[];
  content: string;
  /** The article's own public path, or null/absent: the project's URL pattern gives it. */
  path?: string | null;
  /** The first folder of the source file under the content root (Hugo's section), for the pattern's :section. */
  section?: string | null;
  /** The cover image's alt text (Ghost's feature_image_alt). */
  coverImageAlt?: string | null;
  /** Former paths, kept for redirects. */
  aliases?: string[];
  /** The feed id the old feed used (a front-matter guid, Ghost's id, a migrated article's URL). */
  guid?: string | null;
  visibility?: Visibility;
  tiers?: string[];
  /** Every author in the source's order; absent: just `author`. */
  authors?: AuthorInput[];
}

export interface ContentSource {
  tags: TagInput[];
  articles: ArticleInput[];
  /** Things ignored or filled in, reported but not refused (unknown fields, a publishedAt supplied). */
  warnings?: ImportProblem[];
  /** The generator whose layout was read (`folio`, `hugo`, `jekyll`, `eleventy`, `astro`, `nextjs`, `docusaurus`, `ghost`). */
  generator?: string;
  /** Project settings the site's configuration gives. */
  settings?: Partial<SiteSettings>;
  /** Every file of the site that holds content or was looked at, and what became of it. */
  files?: FileReport[];
}

export interface ImportProblem {
  file: string;
  line: number;
  message: string;
  /** A warning's kind, counted in the import's summary (`default-author`, `unknown-shortcode` …). */
  kind?: string;
}

export interface ReadOptions {
  /** Refuse unknown fields instead of warning about them and ignoring them. */
  strict?: boolean;
  /** The site layout to read (`folio`, `hugo`, `jekyll`, `eleventy`, `astro`, `nextjs`, `docusaurus`), instead of detecting it. */
  format?: string;
  /**
   * The site's URL (`https://example.com`), for sources that do not hold it: a Ghost export writes
   * every URL of its own site as `__GHOST_URL__/…`, replaced by it (else by nothing: site paths).
   */
  siteUrl?: string;
  /** Called as each file (or entry of a JSON file) of `total` is read: `done` so far. */
  onProgress?: (done: number, total: number) => void;
  /**
   * Check a Folio folder's files in two threads (default: from 1,000 files), then the order of
   * warnings and problems is still the files'; for tests.
   */
  threads?: boolean;
}

export function formatProblem(problem: ImportProblem): string {
  return `${problem.file}:${problem.line}: ${problem.message}`;
}

export class ImportValidationError extends Error {
  readonly problems: ImportProblem[];

  constructor(problems: ImportProblem[]) {
    super(problems.map(formatProblem).join('\n'));
    this.name = 'ImportValidationError';
    this.problems = problems;
  }
}
