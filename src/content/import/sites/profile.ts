// What a static-site generator's profile tells the shared site pipeline (pipeline.ts): how to
// recognise its layout, what its configuration says, what each file is, which front-matter names
// carry which article field, and its rules for paths, feed ids, drafts and excerpts.
import type { Path } from '../check-kit.ts';
import type { SplitFile } from '../markdown-file.ts';
import type { AuthorInput, ImportProblem, ReadOptions, SiteSettings } from '../records.ts';
import type { TemplateContext, TemplateDialect } from '../templates/expand.ts';

/** The template languages a body may hold, expanded at import (templates/expand.ts). */
export type Dialect = TemplateDialect;

/** One Markdown file of the site with its front matter read. */
export interface SiteDoc {
  /** The path under the site root, with `/`. */
  file: string;
  data: Record<string, unknown>;
  locate: (path: Path) => number;
  body: string;
  /** The file line of the body's first line. */
  bodyLine: number;
  /** The front-matter key as written for a name (Hugo's keys are case-insensitive), or undefined. */
  key: (name: string) => string | undefined;
  /** Keys of `data` that the site's cascade gave rather than the file (not warned about; their line is the file's first). */
  inherited: ReadonlySet<string>;
}

/** What a file of the site is. `ignore`: config, layout and data files, not reported. */
export type FileClass =
  | { kind: 'ignore' }
  | { kind: 'skipped'; reason: string }
  | { kind: 'page'; reason: string }
  | { kind: 'article'; draftReason?: string };

/**
 * The front-matter names of each article field, in order of preference; the first one given is
 * used and the others of the same field are reported as ignored.
 */
export interface FieldNames {
  title: readonly string[];
  slug: readonly string[];
  publishedAt: readonly string[];
  updatedAt: readonly string[];
  /** The excerpt as written (Hugo `summary`, Jekyll `excerpt`); a divider in the body comes first. */
  excerpt: readonly string[];
  /** The meta description (seo.metaDescription). */
  description: readonly string[];
  /** The Open Graph image (seo.ogImage): a string or `{ url }` (Next.js blog-starter). */
  ogImage?: readonly string[];
  /** The canonical URL (seo.canonicalUrl), when the post says it lives elsewhere. */
  canonicalUrl?: readonly string[];
  /** Who last updated the post (lastUpdatedBy): a name or `{ name }`. */
  lastUpdatedBy?: readonly string[];
  /** A string, a list (its first item: Hugo `images`), or `{ image | url | path }`. */
  coverImage: readonly string[];
  tags: readonly string[];
  /** Kept as tags after the post's own tags (Folio has one taxonomy). */
  categories: readonly string[];
  /** Names, author-file keys or `{ name, … }` objects, one or a list. */
  authors: readonly string[];
  /** Former paths, kept for redirects. */
  aliases: readonly string[];
  guid: readonly string[];
  /** `true` makes a draft. */
  draft: readonly string[];
  /** `false` makes a draft (Jekyll's `published`). */
  published: readonly string[];
  /** Read by the profile's own rules (`url`, `permalink`, `excerpt_separator`): used, never warned. */
  own: readonly string[];
  /** Theme fields with why Folio has no place for them: warned as `ignored-field`. */
  ignored: Readonly<Record<string, string>>;
}

/** Where the generator publishes an article, and the feed id its feed gave it. */
export interface Placement {
  /** The public path, or null when the generator gives none yet (an undated draft). */
  path: string | null;
  /** The front-matter field that gave the path's last segment (for the line of a slug problem). */
  slugFrom: Path;
  /** The slug when the path gives none (null path). */
  fallbackSlug: string;
  /** The old feed's id for it, absolute; null: the serving stage derives it. */
  guid: string | null;
  /** The content section (Hugo's first folder), for a URL pattern's :section. */
  section: string | null;
}

/** What the shared flow has read of an article before asking the profile where it lives. */
export interface ArticleFacts {
  title: string;
  /** The front matter's slug, when given and a string. */
  slug: string | null;
  publishedAt: string | null;
}

/** A site opened by its profile: settings, and the rules the pipeline asks file by file. */
export interface SiteReader {
  settings: SiteSettings;
  /** Warnings about the configuration (e.g. `url-pattern-approximated` at `_config.yml:6`). */
  warnings: ImportProblem[];
  /** Problems that stop the import (a configuration file that cannot be read). */
  problems: ImportProblem[];
  /** Folders under the site root whose files are listed (`''` is the root). */
  roots: readonly string[];
  /** Whether a file or folder under a root is left out of the listing entirely (caches, output, layouts). */
  skipEntry: (path: string, isDirectory: boolean) => boolean;
  classify: (file: string, files: ReadonlySet<string>) => FileClass;
  fields: FieldNames;
  /**
   * Values the site gives a file under its own front matter (Jekyll's `defaults`, Eleventy's
   * directory data files); the file's own fields win.
   */
  cascade: (file: string) => Record<string, unknown>;
  /** Hugo reads front-matter keys case-insensitively. */
  caseInsensitiveKeys: boolean;
  /** The template languages of an article's body, in the order they run (Eleventy: per file). */
  dialects: (doc: SiteDoc) => Dialect[];
  /** Site options for the template expander (Hugo's privacy settings, the site's own shortcodes, known variables). */
  templateOptions: (doc: SiteDoc) => TemplateContext['options'];
  /** Authors of the site's author file, by key. */
  authors: ReadonlyMap<string, AuthorInput>;
  /** The site's author, given to an article without one (with a `default-author` warning). */
  defaultAuthor: AuthorInput | null;
  /** The date a file's name gives (Jekyll's `2024-01-15-title.md`), read in the site's zone. */
  fileDate: (file: string) => string | null;
  /** The excerpt divider of this article (`<!--more-->`), or null when the generator has none. */
  excerptSeparator: (doc: SiteDoc) => string | null;
  /**
   * A draft or excluded article beyond the `draft`/`published` fields, with the report's reason
   * and the field that excludes it (the line of the `unlisted` warning; the file's first line without it).
   */
  exclusion: (doc: SiteDoc) => { kind: 'draft' | 'excluded'; reason: string; path?: Path } | null;
  /**
   * For generators whose front matter decides what a file is (Eleventy: the data cascade's tags,
   * `permalink: false`) or holds values only the file system or Git gives (Eleventy's `date: Last
   * Modified`, `git Created`): called once a page's or article's front matter is read, before the
   * shared flow. It may rewrite `doc.data` values (a date keyword into the date it stands for) and
   * returns the file's class and the warnings it found (kept when the article is imported).
   */
  readDoc?: (doc: SiteDoc, kind: FileClass) => Promise<{ kind: FileClass; warnings: ImportProblem[] }>;
  /**
   * Front matter in a form of the generator's own (Eleventy's `---js`): the file split into data
   * and body, or null for the usual YAML or TOML front matter.
   */
  splitDoc?: (file: string, text: string) => SplitFile | null;
  /**
   * Why a relative image in this article's body is published under a name the source does not
   * hold (Astro's assets, Eleventy's image transform), or null: such images are then reported
   * `asset-not-public` instead of being checked beside the post.
   */
  processedImages?: (doc: SiteDoc) => string | null;
  /**
   * The report's reasons in the generator's words: `draft: true`, `published: false`, and a future
   * date (stored published with that date, i.e. scheduled; null when the generator publishes
   * future-dated posts at once, as Eleventy and Astro do: then a `future-date` warning says that
   * Folio holds the post back until its date).
   */
  reasons: { draft: string; unpublished: string; future: string | null };
  place: (doc: SiteDoc, facts: ArticleFacts) => Placement;
  /**
   * What a file classified as a page is, once its front matter is read (null: it has none, or it
   * cannot be read): a page with its public path, or a file the generator copies as it is.
   */
  page: (
    doc: SiteDoc | null,
    file: string,
    reason: string,
  ) => { kind: 'page' | 'skipped'; reason: string; path: string | null };
  /** Hugo: the `<!--more-->` divider wins over a `summary` field; Jekyll: an `excerpt` field wins over the divider. */
  dividerFirst: boolean;
  /**
   * A tag as the front matter writes it → its name and slug (Docusaurus tags.yml keys, Next.js's
   * github-slugger slugs); absent: the name as written, its slug derived. The tags it gives are the
   * ContentSource's declared tags, so a name it gave must give itself again.
   */
  tagOf?: (written: string) => { name: string; slug: string | null };
  /**
   * Why a page-relative cover image is not where the generator publishes it (Docusaurus serves
   * co-located files under hashed /assets/ names): warned `asset-not-public` at its field. Body
   * images say so through processedImages.
   */
  assetNote?: string;
  /** Resolves a cross-reference of a template tag (Hugo `ref`, Liquid `link`/`post_url`) among the site's files. */
  refCandidates: (target: string, from: string) => string[];
}

export interface SiteProfile {
  /** The `--format` name, and ContentSource.generator. */
  name: string;
  /** Whether a folder is laid out for this generator: a few stat calls, no parsing. */
  detect: (root: string) => Promise<boolean>;
  open: (root: string, options: ReadOptions) => Promise<SiteReader>;
}
