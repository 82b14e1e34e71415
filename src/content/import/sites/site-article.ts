// The shared per-file flow of a static site's post or draft: front-matter fields read through the
// profile's names (every field used, mapped or warned about with its line), dates in the site's
// time zone, the generator's path and feed id, authors from the author file or the site default,
// tags then categories, the cover image against the article's own URL. The body is finished later
// (site-body.ts), once every article's path is known for cross-references.
import { resolveAgainstArticle } from '../../article-url.ts';
import {
  type Ctx,
  describe,
  formatPath,
  isObject,
  lineOf,
  optionalDate,
  optionalText,
  type Path,
  report,
  requiredText,
  sortByLine,
  warn,
} from '../check-kit.ts';
import type {
  ArticleInput,
  AuthorInput,
  FileReport,
  ImportProblem,
  PersonInput,
  SeoInput,
} from '../records.ts';
import { articleTags } from '../tag-rules.ts';
import { absoluteOnSite, lastSegment, slugOfSegment } from './config-file.ts';
import type { FieldNames, Placement, SiteDoc, SiteReader } from './profile.ts';

const TITLE_MAX = 300;
const SLUG_MAX = 200;

export interface SiteArticle {
  article?: ArticleInput;
  slug?: string;
  slugLine: () => number;
  problems: ImportProblem[];
  report: FileReport;
  /** The excerpt divider found in the body, removed from the content by the body stage. */
  separator: string | null;
  /** Whether the excerpt is the body's text before the divider (template syntax expanded later). */
  excerptFromBody: boolean;
  /** The article's absolute URL (or its path without a site URL), for relative links and images. */
  base: string | null;
  warnings: ImportProblem[];
}

/** The first of a field's names that the front matter gives; the later ones are warned as ignored. */
function pick(
  ctx: Ctx,
  doc: SiteDoc,
  names: readonly string[],
  field: string,
): { value: unknown; path: Path } {
  const given = names
    .map((name) => fieldPath(doc, name))
    .filter((path): path is string[] => path !== null && valueAt(doc, path) !== undefined);
  // The file's own fields come before the values a cascade gave it, which are never warned about.
  const inherited = (path: string[]) => doc.inherited.has(path[0]);
  const unique = [...new Map(given.map((path) => [path.join('.'), path])).values()].sort(
    (a, b) => Number(inherited(a)) - Number(inherited(b)),
  );
  for (const other of unique.slice(1).filter((path) => !inherited(path))) {
    const name = other.join('.');
    warn(ctx, other, `"${name}" ignored: "${unique[0].join('.')}" gives the ${field}`, 'ignored-field');
  }
  const chosen = unique[0];
  return chosen === undefined
    ? { value: undefined, path: [names[0] ?? field] }
    : { value: valueAt(doc, chosen), path: chosen };
}

/** A field name's path in the front matter as written (`last_update.date` → its two keys), or null. */
function fieldPath(doc: SiteDoc, name: string): string[] | null {
  const [first, ...rest] = name.split('.');
  const key = doc.key(first);
  return key === undefined ? null : [key, ...rest];
}

/** The value at a path; null counts as not given. */
function valueAt(doc: SiteDoc, path: readonly string[]): unknown {
  let value: unknown = doc.data;
  for (const key of path) {
    if (!isObject(value)) return undefined;
    value = value[key];
  }
  return value ?? undefined;
}

/** Warns about every front-matter key no field, no rule of the profile and no theme list knows. */
function reportUnusedFields(ctx: Ctx, doc: SiteDoc, fields: FieldNames, caseInsensitive: boolean): void {
  const fold = (name: string) => (caseInsensitive ? name.toLowerCase() : name);
  const { own, ignored, ...roles } = fields;
  const names = [...Object.values(roles).flatMap((list) => list ?? []), ...own];
  const used = new Set(names.map((name) => fold(name.split('.')[0])));
  const themeFields = new Map(Object.entries(ignored).map(([name, why]) => [fold(name), why]));
  for (const key of Object.keys(doc.data)) {
    if (used.has(fold(key)) || doc.inherited.has(key)) continue;
    const why = themeFields.get(fold(key));
    const message =
      why === undefined
        ? `unknown field ${JSON.stringify(key)}: Folio has no place for it, ignored`
        : `${JSON.stringify(key)} ignored: ${why}`;
    if (ctx.strict) report(ctx, [key], message);
    else warn(ctx, [key], message, 'ignored-field');
  }
}

/** A cover image field: a string, a list's first string (Hugo `images`), or `{ image | url | path | src }`. */
function coverValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.find((item) => typeof item === 'string') ?? value[0];
  if (isObject(value)) return value['image'] ?? value['url'] ?? value['path'] ?? value['src'];
  return value;
}

const PICTURE_FIELDS = ['image', 'picture', 'avatar', 'image_url', 'imageURL', 'imageUrl'];
const URL_FIELDS = ['url', 'uri', 'link', 'website'];
const TITLE_FIELDS = ['title', 'occupation', 'job'];

function firstText(object: Record<string, unknown>, names: readonly string[]): string | null {
  for (const name of names) {
    const value = object[name];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  return null;
}

/** An author from an author file or front matter: `{ name, picture | avatar | image_url, url | uri, title }`. */
export function authorOf(
  key: string | null,
  object: Record<string, unknown>,
  siteUrl: string | null,
): AuthorInput | null {
  const name = firstText(object, ['name', 'display_name', 'displayName']) ?? key;
  if (name === null) return null;
  const image = firstText(object, PICTURE_FIELDS);
  const url = firstText(object, URL_FIELDS);
  return {
    name,
    slug: key ?? slugOfSegment(name) ?? 'author',
    image: image === null ? null : absoluteOnSite(image, siteUrl),
    title: firstText(object, TITLE_FIELDS),
    url: url === null ? null : absoluteOnSite(url, siteUrl),
  };
}

/**
 * For generators whose `authors` strings are only keys of an author file (Docusaurus authors.yml,
 * the tailwind starter's data/authors): each key the file lacks, warned `unknown-author` at its
 * line (the generator would fail to build); the shared flow then keeps it as a name.
 */
export function unknownAuthorKeys(
  doc: SiteDoc,
  field: string,
  authors: ReadonlyMap<string, AuthorInput>,
  authorFile: string,
): ImportProblem[] {
  const value = doc.data[field];
  const items = Array.isArray(value) ? value : [value];
  return items.flatMap((item, i) =>
    typeof item === 'string' && item.trim() !== '' && !authors.has(item.trim())
      ? [
          {
            file: doc.file,
            line: doc.locate(Array.isArray(value) ? [field, i] : [field]),
            kind: 'unknown-author',
            message: `author ${JSON.stringify(item)} is not a key of ${authorFile}: the generator would not build it; imported as an author of that name`,
          },
        ]
      : [],
  );
}

/** The article's authors: keys of the author file, names, or objects; one or a list. */
function readAuthors(ctx: Ctx, doc: SiteDoc, reader: SiteReader): AuthorInput[] {
  const { value, path } = pick(ctx, doc, reader.fields.authors, 'authors');
  if (value === undefined) return [];
  const items = Array.isArray(value) ? value : [value];
  const authors: AuthorInput[] = [];
  items.forEach((item, i) => {
    const itemPath = Array.isArray(value) ? [...path, i] : path;
    let author: AuthorInput | null = null;
    if (typeof item === 'string' && item.trim() !== '') {
      const name = item.trim();
      author = reader.authors.get(name) ?? {
        name,
        slug: slugOfSegment(name) ?? 'author',
        image: null,
        title: null,
        url: null,
      };
    } else if (isObject(item)) {
      author = authorOf(null, item, reader.settings.siteUrl);
    }
    if (author === null) {
      report(
        ctx,
        itemPath,
        `${formatPath(itemPath)} must be a name or an object with "name", got ${describe(item)}`,
      );
    } else if (!authors.some((known) => known.slug === author.slug)) {
      authors.push(author);
    }
  });
  return authors;
}

/** `aliases` / `redirect_from`: a path or a list of paths. */
function readAliases(ctx: Ctx, doc: SiteDoc, reader: SiteReader): string[] {
  const { value, path } = pick(ctx, doc, reader.fields.aliases, 'aliases');
  if (value === undefined) return [];
  const items = Array.isArray(value) ? value : [value];
  const aliases: string[] = [];
  items.forEach((item, i) => {
    if (typeof item === 'string' && item.trim() !== '') aliases.push(item.trim());
    else
      report(
        ctx,
        Array.isArray(value) ? [...path, i] : path,
        `${formatPath(path)} must hold paths, got ${describe(item)}`,
      );
  });
  return aliases;
}

/** True when the first given of the names is the boolean `flag`; a non-boolean is a problem. */
function flagged(ctx: Ctx, doc: SiteDoc, names: readonly string[], flag: boolean): boolean {
  const { value, path } = pick(ctx, doc, names, String(names[0]));
  if (value === undefined) return false;
  if (typeof value !== 'boolean') {
    report(ctx, path, `${formatPath(path)} must be true or false, got ${describe(value)}`);
    return false;
  }
  return value === flag;
}

/** The text before the divider, trimmed, when the body holds it; null otherwise. */
function excerptBefore(body: string, separator: string | null): string | null {
  if (separator === null || separator === '') return null;
  const at = body.indexOf(separator);
  if (at < 0) return null;
  const text = body.slice(0, at).trim();
  return text === '' ? null : text;
}

/** The dates, in the site's time zone when they carry no offset; the file name's date is the fallback. */
function readDates(ctx: Ctx, doc: SiteDoc, reader: SiteReader) {
  const zone = reader.settings.timeZone ?? undefined;
  const published = pick(ctx, doc, reader.fields.publishedAt, 'publication date');
  const updated = pick(ctx, doc, reader.fields.updatedAt, 'update date');
  const publishedAt = optionalDate(ctx, published.value, published.path, zone) ?? reader.fileDate(doc.file);
  const updatedAt = optionalDate(ctx, updated.value, updated.path, zone);
  return { publishedAt, updatedAt, publishedPath: published.path };
}

/** The fields that hang off the article's place: excerpt, description, cover, authors, tags, aliases, feed id. */
function describedFields(
  ctx: Ctx,
  doc: SiteDoc,
  reader: SiteReader,
  placement: Placement,
  base: string | null,
  excluded: boolean,
) {
  const separator = reader.excerptSeparator(doc);
  const excerptField = pick(ctx, doc, reader.fields.excerpt, 'excerpt');
  const written = optionalText(ctx, excerptField.value, excerptField.path);
  const divided = excerptBefore(doc.body, separator);
  const coverField = pick(ctx, doc, reader.fields.coverImage, 'cover image');
  const cover = optionalText(ctx, coverValue(coverField.value), coverField.path);
  if (cover !== null && reader.assetNote !== undefined && isPageRelative(cover))
    warn(ctx, coverField.path, `image ${JSON.stringify(cover)}: ${reader.assetNote}`, 'asset-not-public');
  let authors = readAuthors(ctx, doc, reader);
  // An excluded article was never listed or fed, so no byline of the site stood for it: none is given.
  if (authors.length === 0 && reader.defaultAuthor !== null && !excluded) {
    authors = [reader.defaultAuthor];
    const whose =
      reader.settings.defaultAuthor === null
        ? "no site author either: the project's name"
        : "the site's author";
    warn(ctx, [], `no author: ${whose} ${reader.defaultAuthor.name} is used`, 'default-author');
  }
  const tagsField = pick(ctx, doc, reader.fields.tags, 'tags');
  const categoriesField = pick(ctx, doc, reader.fields.categories, 'categories');
  // articleTags names its fields `tags` and `categories`; their lines are those of the names this file uses.
  const locate = (path: Path) =>
    doc.locate([path[0] === 'tags' ? tagsField.path[0] : categoriesField.path[0], ...path.slice(1)]);
  const guidField = pick(ctx, doc, reader.fields.guid, 'feed id');
  return {
    // A blank-line divider (Jekyll's default) marks the first paragraph: it stays in the content.
    separator:
      separator !== null && separator.trim() !== '' && doc.body.includes(separator) ? separator : null,
    excerpt: reader.dividerFirst ? (divided ?? written) : (written ?? divided),
    // The excerpt cut from the body holds template syntax, expanded with the body (pipeline.ts).
    excerptFromBody: divided !== null && (reader.dividerFirst || written === null),
    seo: seoFields(ctx, doc, reader, base),
    coverImage: cover === null ? null : resolveCover(cover, base, reader.settings.siteUrl),
    authors,
    tags: siteTags(reader, articleTags({ ...ctx, locate }, tagsField.value, categoriesField.value)),
    lastUpdatedBy: personField(ctx, doc, reader.fields.lastUpdatedBy ?? []),
    aliases: readAliases(ctx, doc, reader),
    guid: optionalText(ctx, guidField.value, guidField.path) ?? placement.guid,
  };
}

/** The meta description, Open Graph image and canonical URL; null when the post gives none. */
function seoFields(ctx: Ctx, doc: SiteDoc, reader: SiteReader, base: string | null): SeoInput | null {
  const description = pick(ctx, doc, reader.fields.description, 'meta description');
  const ogImage = pick(ctx, doc, reader.fields.ogImage ?? [], 'Open Graph image');
  const canonical = pick(ctx, doc, reader.fields.canonicalUrl ?? [], 'canonical URL');
  const metaDescription = optionalText(ctx, description.value, description.path);
  const og = optionalText(ctx, coverValue(ogImage.value), ogImage.path);
  const canonicalUrl = optionalText(ctx, canonical.value, canonical.path);
  if (metaDescription === null && og === null && canonicalUrl === null) return null;
  return {
    metaTitle: null,
    metaDescription,
    ogImage: og === null ? null : resolveCover(og, base, reader.settings.siteUrl),
    canonicalUrl,
    keywords: null,
  };
}

/** The tags by the profile's names (a tags file's labels), each once. */
function siteTags(reader: SiteReader, written: string[]): string[] {
  if (reader.tagOf === undefined) return written;
  const names = written.map((tag) => (reader.tagOf as NonNullable<SiteReader['tagOf']>)(tag).name);
  return [...new Set(names)];
}

/** A person field (`last_update.author`): a name or `{ name, image }`. */
function personField(ctx: Ctx, doc: SiteDoc, names: readonly string[]): PersonInput | null {
  const { value } = pick(ctx, doc, names, 'last editor');
  if (typeof value === 'string' && value.trim() !== '') return { name: value.trim(), image: null };
  if (isObject(value)) {
    const author = authorOf(null, value, null);
    if (author !== null) return { name: author.name, image: author.image };
  }
  return null;
}

/** Whether a link target is relative to the page (no scheme, no leading `/`, not a fragment). */
function isPageRelative(target: string): boolean {
  return !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('/') && !target.startsWith('#');
}

/**
 * The path relative links resolve against: a path without a trailing slash or an `.html` name is
 * the article's folder (Next.js and Docusaurus write `/blog/x` for `/blog/x/`, and Hugo's `url: /x`
 * is `/x/index.html`), so that `./queue.png` beside the post stays under its URL.
 */
function folderOf(path: string): string {
  return path.endsWith('/') || /\.html?$/i.test(path) ? path : `${path}/`;
}

/** Reads one post or draft; `draftReason` comes from the file's place (Jekyll's `_drafts/`). */
export function readSiteArticle(
  doc: SiteDoc,
  reader: SiteReader,
  draftReason: string | undefined,
  options: { strict: boolean; now: Date },
): SiteArticle {
  const warnings: ImportProblem[] = [];
  const ctx: Ctx = { file: doc.file, problems: [], warnings, strict: options.strict, locate: doc.locate };
  reportUnusedFields(ctx, doc, reader.fields, reader.caseInsensitiveKeys);
  const titleField = pick(ctx, doc, reader.fields.title, 'title');
  const title = requiredText(ctx, titleField.value, titleField.path, TITLE_MAX);
  const slugField = pick(ctx, doc, reader.fields.slug, 'slug');
  const { publishedAt, updatedAt, publishedPath } = readDates(ctx, doc, reader);
  const placement = reader.place(doc, {
    title: title ?? '',
    slug: typeof slugField.value === 'string' ? slugField.value : null,
    publishedAt,
  });
  const slug =
    (placement.path === null ? null : slugOfSegment(lastSegment(placement.path))) ?? placement.fallbackSlug;
  const segment = placement.path === null ? null : lastSegment(placement.path).replace(/\.html?$/i, '');
  if (segment !== null && segment !== slug) {
    warn(
      ctx,
      placement.slugFrom,
      `the path's last segment ${JSON.stringify(segment)} is not a Folio slug: the slug is ${JSON.stringify(slug)}, the path stays ${placement.path}`,
      'slug-normalised',
    );
  }
  if (slug.length > SLUG_MAX)
    report(ctx, placement.slugFrom, `the slug ${JSON.stringify(slug)} is longer than ${SLUG_MAX} characters`);
  const base = placement.path === null ? null : (reader.settings.siteUrl ?? '') + folderOf(placement.path);
  const status = articleState(ctx, doc, reader, draftReason, { publishedAt, publishedPath }, options.now);
  if (status.status === 'published' && publishedAt === null) {
    warn(
      ctx,
      [],
      'published without a date: publishedAt is set to the time of its first import',
      'missing-date',
    );
  }
  const excluded = status.kind === 'excluded';
  const { separator, authors, excerptFromBody, ...fields } = describedFields(
    ctx,
    doc,
    reader,
    placement,
    base,
    excluded,
  );

  sortByLine(ctx.problems);
  sortByLine(warnings);
  const outcome = { slug, slugLine: lineOf(doc.locate(placement.slugFrom)), problems: [...ctx.problems] };
  const reportLine: FileReport = { file: doc.file, kind: status.kind };
  if (status.reason !== undefined) reportLine.reason = status.reason;
  // A refused file reports its problems only: its warnings would describe an article that is not imported.
  if (ctx.problems.length > 0 || title === null) {
    return { ...outcome, report: reportLine, separator, excerptFromBody, base, warnings: [] };
  }
  const first = authors[0];
  const article: ArticleInput = {
    file: doc.file,
    slug,
    title,
    ...fields,
    status: status.status,
    publishedAt,
    createdAt: null,
    updatedAt,
    author: first === undefined ? null : { name: first.name, image: first.image },
    variants: [],
    content: doc.body,
    path: placement.path,
    section: placement.section,
    visibility: 'public',
    authors,
  };
  return { ...outcome, article, report: reportLine, separator, excerptFromBody, base, warnings };
}

/**
 * The article's status and its line in the file report: a draft (`draft: true`, `published:
 * false`, the profile's exclusion), excluded (built but unlisted: stored as a draft, warned
 * `unlisted`), scheduled (published with a future date: the generator would not build it yet), or a post.
 */
function articleState(
  ctx: Ctx,
  doc: SiteDoc,
  reader: SiteReader,
  draftReason: string | undefined,
  { publishedAt, publishedPath }: { publishedAt: string | null; publishedPath: Path },
  now: Date,
): { kind: FileReport['kind']; status: ArticleInput['status']; reason?: string } {
  const isDraft = flagged(ctx, doc, reader.fields.draft, true);
  const unpublished = flagged(ctx, doc, reader.fields.published, false);
  const exclusion = reader.exclusion(doc);
  const draft = (reason: string) => ({ kind: 'draft' as const, status: 'draft' as const, reason });
  if (draftReason !== undefined) return draft(draftReason);
  if (isDraft) return draft(reader.reasons.draft);
  if (unpublished) return draft(reader.reasons.unpublished);
  if (exclusion?.kind === 'draft') return draft(exclusion.reason);
  if (exclusion?.kind === 'excluded') {
    warn(
      ctx,
      exclusion.path ?? [],
      `${exclusion.reason}: imported as a draft, so that Folio does not list it either`,
      'unlisted',
    );
    return { kind: 'excluded', status: 'draft', reason: exclusion.reason };
  }
  const future = publishedAt !== null && Date.parse(publishedAt) > now.getTime();
  if (future && reader.reasons.future !== null) {
    return { kind: 'post', status: 'published', reason: reader.reasons.future };
  }
  if (future) {
    warn(
      ctx,
      publishedPath,
      'the generator publishes a future-dated post at once; Folio holds it back (scheduled) until its date',
      'future-date',
    );
  }
  return { kind: 'post', status: 'published' };
}

/** A cover image against the article's URL (a page-bundle resource), `/x` against the site root. */
function resolveCover(value: string, base: string | null, siteUrl: string | null): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(value) || value.startsWith('//')) return value;
  if (value.startsWith('/')) return absoluteOnSite(value, siteUrl);
  if (base === null) return value;
  const absolute = resolveAgainstArticle(value, new URL(base, 'http://site.invalid').href);
  return siteUrl === null ? absolute.replace(/^http:\/\/site\.invalid/, '') : absolute;
}
