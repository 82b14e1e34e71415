// The article and tag shapes of the API: request parameters and responses, one source for
// validation, serialisation and the OpenAPI document.
import { type Static, Type } from 'typebox';
import { NameList, Nullable, StringEnum, Timestamp } from '../http/schema-helpers.ts';
import { reportedStatuses } from './article-status.ts';
import { PreviewToken } from './preview-schemas.ts';

export const selectableFields = [
  'content',
  'html',
  'excerpt',
  'coverImage',
  'title',
  'slug',
  'published',
  'status',
  'viewCount',
  'author',
  'lastUpdatedBy',
  'tags',
  'variants',
  'project',
  'tagColor',
  'tagIcon',
  'wordCount',
  'characterCount',
  'readTimeMinutes',
  'createdAt',
  'updatedAt',
  'publishedAt',
  'url',
  'path',
  'aliases',
  'authors',
  'visibility',
  'tiers',
  'coverImageAlt',
  'seo',
  'section',
  'guid',
  'version',
] as const;
export type SelectableField = (typeof selectableFields)[number];

/** The fields of each item of an article list when `select` does not change them. */
export const listDefaultFields = [
  'title',
  'slug',
  'excerpt',
  'coverImage',
  'published',
  'viewCount',
  'readTimeMinutes',
  'createdAt',
  'publishedAt',
] as const satisfies readonly SelectableField[];
/** The fields of a single article when `select` does not change them. */
export const singleDefaultFields = [
  ...listDefaultFields,
  'content',
  'wordCount',
  'author',
] as const satisfies readonly SelectableField[];

export const articleSortFields = [
  'createdAt',
  'updatedAt',
  'publishedAt',
  'title',
  'viewCount',
  'readTimeMinutes',
  'wordCount',
] as const;
export type ArticleSortField = (typeof articleSortFields)[number];

const Person = Type.Object({ name: Type.String(), image: Nullable(Type.String()) });

const ArticleAuthor = Type.Object({
  name: Type.String(),
  slug: Type.String({
    description: "the source's key or slug, else derived from the name (`Rosa Quental` → `rosa-quental`)",
  }),
  image: Nullable(Type.String()),
  title: Nullable(Type.String()),
  url: Nullable(Type.String()),
});

const ArticleTag = Type.Object({
  id: Type.String(),
  name: Type.String(),
  color: Type.Optional(Nullable(Type.String(), { description: 'with `tagColor` in `select`' })),
  icon: Type.Optional(Nullable(Type.String(), { description: 'with `tagIcon` in `select`' })),
});

const Variant = Type.Object({
  id: Type.String(),
  key: Type.String(),
  title: Nullable(Type.String()),
  excerpt: Nullable(Type.String()),
  content: Nullable(Type.String()),
});

const articleProperties = {
  id: Type.String(),
  title: Type.Optional(Type.String()),
  slug: Type.Optional(Type.String()),
  content: Type.Optional(Type.String({ description: 'Markdown' })),
  html: Type.Optional(
    Nullable(Type.String(), {
      description:
        'The content as HTML, rendered from the Markdown once at import and sanitised (no scripts, styles, event handlers or `javascript:` links; relative URLs stay relative). Only with `"html":true` in `select`; null for an article not re-imported since the field was added.',
    }),
  ),
  excerpt: Type.Optional(Nullable(Type.String())),
  coverImage: Type.Optional(Nullable(Type.String())),
  coverImageAlt: Type.Optional(
    Nullable(
      Type.String({
        description: "The cover image's alt text, as the source had it (Ghost's feature_image_alt).",
      }),
    ),
  ),
  published: Type.Optional(Type.Boolean({ description: 'true exactly when `status` is `published`' })),
  status: Type.Optional(StringEnum(reportedStatuses)),
  viewCount: Type.Optional(
    Type.Integer({
      description:
        'Tracked page views of the article. May lag tracked page views by up to 3 seconds: page views are summed in batches within 1 s, and do not invalidate cached answers, which refresh their counts at most every 2 s.',
    }),
  ),
  wordCount: Type.Optional(Type.Integer()),
  characterCount: Type.Optional(
    Type.Integer({ description: 'code points of the plain text, whitespace excluded' }),
  ),
  readTimeMinutes: Type.Optional(Type.Integer()),
  author: Type.Optional(Person),
  lastUpdatedBy: Type.Optional(Nullable(Person)),
  tags: Type.Optional(
    Type.Array(ArticleTag, {
      description:
        'ordered by name; each `{ id, name }` as the API has always shaped it (a tag’s `slug` is in `GET /v1/tags`, which also finds a tag by it)',
    }),
  ),
  variants: Type.Optional(Type.Array(Variant, { description: 'ordered by key' })),
  project: Type.Optional(Type.Object({ id: Type.String(), name: Type.String(), slug: Type.String() })),
  createdAt: Type.Optional(Timestamp),
  updatedAt: Type.Optional(Timestamp),
  publishedAt: Type.Optional(Nullable(Timestamp)),
  url: Type.Optional(
    Type.String({
      description:
        "The article's public URL: the project's `siteUrl` (without trailing slash) plus `path`; the path alone when the project has no site URL. The same URL as the SEO answers' canonical URL, sitemap `loc` and RSS `link` with the site URL as `baseUrl`.",
    }),
  ),
  path: Type.Optional(
    Type.String({
      description:
        "The article's public path: its own (from the source's `permalink`, `url`, a path-like slug or the generator's rules), else the project's `urlPattern` filled in (`:year`, `:month`, `:day` from `publishedAt`, else `createdAt`, in the project's `timeZone`; `:section`; `:slug`).",
    }),
  ),
  aliases: Type.Optional(
    Type.Array(Type.String(), {
      description: 'Former paths of the article (`aliases`, `redirect_from`), listed by `GET /v1/redirects`.',
    }),
  ),
  authors: Type.Optional(
    Type.Array(ArticleAuthor, {
      description:
        "Every author in the source's order; the first is `author`. An article imported with a single author lists that one, its slug derived from the name.",
    }),
  ),
  visibility: Type.Optional(
    StringEnum(['public', 'members', 'paid'] as const, {
      description:
        "Who may read the whole article on the blog. To public keys a `members` or `paid` article's `content` and `html` (and its variants' `content`) are only the part before a `<!--members-only-->` marker, empty without one; secret keys read everything.",
    }),
  ),
  tiers: Type.Optional(
    Type.Array(Type.String(), {
      description: "The source's tiers of a paid article (Ghost's tier slugs); else empty.",
    }),
  ),
  seo: Type.Optional(
    Nullable(
      Type.Object({
        metaTitle: Nullable(Type.String()),
        metaDescription: Nullable(Type.String()),
        ogImage: Nullable(Type.String()),
        canonicalUrl: Nullable(Type.String()),
        keywords: Nullable(Type.Array(Type.String())),
      }),
      { description: 'The SEO overrides as written (import or write API); null: none.' },
    ),
  ),
  section: Type.Optional(
    Nullable(
      Type.String({
        description: "The source file's first folder (Hugo's section): the URL pattern's `:section`.",
      }),
    ),
  ),
  guid: Type.Optional(
    Nullable(
      Type.String({
        description: 'The feed id, fixed when the article was first stored (a write cannot change it).',
      }),
    ),
  ),
  version: Type.Optional(
    Type.Integer({
      description:
        'Grows by one with every change of the article (write API, import, CLI). Writes answer it as `ETag: "<version>"`; PUT, PATCH, DELETE and a revision restore need it in `If-Match`.',
    }),
  ),
};

export const Article = Type.Object(articleProperties, {
  $id: 'Article',
  description:
    'An article. Fields present by default: in lists `id, title, slug, excerpt, coverImage, published, viewCount, readTimeMinutes, createdAt, publishedAt`; a single article adds `content, wordCount, author`. `select` adds or removes the others. For a public key, a members-only or paid article (`visibility`) shows only its teaser in `content` and `html`.',
});
export type ArticleView = Static<typeof Article>;

const selectDescription = `JSON object mapping field names to true (add to the defaults) or false (remove). Selectable: ${selectableFields.join(', ')}. \`id\` is always present; \`tagColor\`/\`tagIcon\` add \`color\`/\`icon\` to each tag and include \`tags\`.`;

/**
 * What an absent list parameter means. Ajv fills these in from the schema's `default`s; the type of
 * a validated query still marks them optional (the OpenAPI document must), so the service spreads
 * them under the query too.
 */
export const articleListDefaults = { page: 1, limit: 10, sort: 'createdAt', order: 'desc' } as const;

export const ArticleListQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: articleListDefaults.page })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: articleListDefaults.limit })),
  sort: Type.Optional(
    StringEnum(articleSortFields, {
      default: articleListDefaults.sort,
      description:
        'title sorts case-insensitively (byte order of the lower-cased title); ties are broken by id in the same order',
    }),
  ),
  order: Type.Optional(
    StringEnum(['asc', 'desc'] as const, {
      default: articleListDefaults.order,
      description: 'null publishedAt sorts last in both orders',
    }),
  ),
  published: Type.Optional(
    Type.Boolean({ description: 'a public key sees only published articles: `false` is a 400 for it' }),
  ),
  status: Type.Optional(
    StringEnum(reportedStatuses, {
      description: 'the reported status; a public key may ask only for `published` (else 400)',
    }),
  ),
  search: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        'whitespace-separated terms; each must occur, case-insensitively, as a substring of the title, the excerpt or the content as plain text (the text a reader sees: not Markdown syntax, link URLs, image paths or HTML tags; of a members-only or paid article only its teaser, the part any key may read, whatever key searches), one field at a time (`%`, `_` and other characters are literal). Matches are counted exactly (`meta.total`) from indexes kept by every import: a term of one to three characters from the set of articles holding that piece of text, a longer one from the sets of the project’s words (runs of text between whitespace) that hold it. A term held by very many words (e.g. `tion` in an English blog) is checked in the texts of the articles the other terms and filters leave when they are few (20,000 at most), else its words’ sets are read once and kept until the project’s content changes, so that its next pages and a repeated search reuse them, and the project then stores the term’s own set (for 32 such terms at most), kept up to date by every write, which later searches read instead; only a term held by so many words that their sets exceed 200,000 chunks of 4,096 articles is matched in every text. A term longer than 128 UTF-16 code units is found from the words holding its first 128 units, then checked in those articles’ texts.',
    }),
  ),
  select: Type.Optional(Type.String({ maxLength: 2000, description: selectDescription })),
  tags: Type.Optional(NameList('articles having at least one of these tags (comma-separated or repeated)')),
  tagsAll: Type.Optional(NameList('articles having all of these tags')),
  excludeTags: Type.Optional(NameList('articles having none of these tags')),
});
export type ArticleListQueryType = Static<typeof ArticleListQuery>;

export const ArticleQuery = Type.Object({
  select: Type.Optional(Type.String({ maxLength: 2000, description: selectDescription })),
  preview: Type.Optional(PreviewToken),
});

export const PageMeta = Type.Object({
  page: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer(),
  totalPages: Type.Integer({ description: 'ceil(total / limit)' }),
});

export const tagSortFields = ['name', 'createdAt', 'articleCount'] as const;

export const Tag = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    slug: Type.String({
      description:
        "unique within the project: the source's own (a Ghost tag's, a declared tag's `slug`), else derived from the name as an article slug is written (`Safety Weather` → `safety-weather`); when another tag already holds it, `-2`, `-3` … is appended",
    }),
    icon: Nullable(Type.String()),
    color: Nullable(Type.String({ description: '#RRGGBB' })),
    articleCount: Type.Integer({
      description:
        'articles of the project carrying the tag, in every status unless `published` is given; for a public key, published articles only',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Tag' },
);

/** What an absent tag-list parameter means (see articleListDefaults). */
export const tagListDefaults = { sort: 'name', order: 'asc' } as const;

export const TagListQuery = Type.Object({
  sort: Type.Optional(
    StringEnum(tagSortFields, {
      default: tagListDefaults.sort,
      description: 'name sorts case-insensitively; ties by name',
    }),
  ),
  order: Type.Optional(StringEnum(['asc', 'desc'] as const, { default: tagListDefaults.order })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'absent: all tags' })),
  published: Type.Optional(Type.Boolean({ description: 'count only articles with this `published` value' })),
});
export type TagListQueryType = Static<typeof TagListQuery>;

export const TagQuery = Type.Object({
  published: Type.Optional(Type.Boolean({ description: 'count only articles with this `published` value' })),
});

export const Redirect = Type.Object(
  {
    from: Type.String({ description: 'a former path of the article (`aliases`)' }),
    to: Type.String({ description: "the article's current path (`path`)" }),
    status: Type.Literal(301),
  },
  { $id: 'Redirect' },
);
