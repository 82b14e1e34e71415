// A write API body turned into the import's records by the import's own validators, so that a
// field is checked once, the same way, whatever brings it; problems are 400 issues naming the
// field's path (`seo.metaTitle`, `variants[0].key`). An article as GET shows it can be PUT back:
// the fields GET derives are taken as what they mean.
import { type FieldIssue, ValidationError } from '../errors.ts';
import type { StoredRow } from './article-snapshots.ts';
import { articlePath, usableUrlSettings, type UrlSettings } from './article-url.ts';
import { JSON_ARTICLE_FIELDS, validateArticle } from './import/article-rules.ts';
import { type Ctx, formatPath, isObject, type Path } from './import/check-kit.ts';
import type { ArticleInput, TagInput } from './import/records.ts';
import { validateTagList } from './import/tag-rules.ts';
import { slugOfTagName } from './tag-slugs.ts';

/** Fields of an article's GET answer that no write sets: accepted and ignored, so that a GET can be PUT back. */
export const readOnlyArticleFields = [
  'id',
  'version',
  'published',
  'viewCount',
  'wordCount',
  'characterCount',
  'readTimeMinutes',
  'html',
  'url',
  'project',
] as const;

/** Fields of a tag's GET answer that no write sets. */
export const readOnlyTagFields = ['id', 'articleCount', 'createdAt', 'updatedAt'] as const;

/** A validation context whose problems carry their field path. */
function pathContext(): { ctx: Ctx; issues: () => FieldIssue[] } {
  const paths: Path[] = [];
  const ctx: Ctx = {
    file: 'body',
    problems: [],
    warnings: [],
    strict: true,
    locate: (path) => paths.push(path) - 1,
  };
  return {
    ctx,
    issues: () =>
      ctx.problems.map((problem) => ({
        field: formatPath(paths[problem.line] ?? []) || 'body',
        message: problem.message,
      })),
  };
}

function requireObject(body: unknown): Record<string, unknown> {
  if (!isObject(body)) throw new ValidationError([{ field: 'body', message: 'must be a JSON object' }]);
  // PostgreSQL cannot store NUL in text.
  if (JSON.stringify(body).includes('\\u0000'))
    throw new ValidationError([{ field: 'body', message: 'must not contain a NUL character (\\u0000)' }]);
  return body;
}

export interface CurrentArticle {
  row: StoredRow;
  settings: UrlSettings;
}

/**
 * The GET shapes taken back: `status: scheduled` is a published article; tags as `{ id, name }`
 * are their names; a variant's `id` is dropped; a `path` that is the URL pattern's, an `updatedAt`
 * that is the stored one and `authors` GET made up from `author` are as if not given.
 */
function normalized(
  body: Record<string, unknown>,
  current: CurrentArticle | undefined,
): Record<string, unknown> {
  const data: Record<string, unknown> = { ...body };
  for (const field of readOnlyArticleFields) delete data[field];
  if (data['status'] === 'scheduled') data['status'] = 'published';
  if (Array.isArray(data['tags']))
    data['tags'] = data['tags'].map((tag) =>
      isObject(tag) && typeof tag['name'] === 'string' ? tag['name'] : tag,
    );
  if (Array.isArray(data['variants']))
    data['variants'] = data['variants'].map((variant) => {
      if (!isObject(variant)) return variant;
      const { id: _id, ...rest } = variant;
      return rest;
    });
  if (current === undefined) return data;
  const { row, settings } = current;
  if (row.path === null && data['path'] === articlePath(settings, { ...row, path: null }))
    data['path'] = null;
  if (data['updatedAt'] === row.updated_at) delete data['updatedAt'];
  if (row.authors === '[]' && Array.isArray(data['authors']) && data['authors'].length === 1) {
    const made = {
      name: row.author_name,
      slug: slugOfTagName(row.author_name),
      image: row.author_image,
      title: null,
      url: null,
    };
    if (JSON.stringify(data['authors'][0]) === JSON.stringify(made)) delete data['authors'];
  }
  return data;
}

/** The article a body describes, validated as the import validates an entry of its JSON format. */
export function articleFromBody(body: unknown, current?: CurrentArticle): ArticleInput {
  const data = normalized(requireObject(body), current);
  const { ctx, issues } = pathContext();
  const outcome = validateArticle(ctx, data, { allowed: JSON_ARTICLE_FIELDS });
  if (!outcome.article || ctx.problems.length > 0) throw new ValidationError(issues());
  const article = outcome.article;
  // Not given: kept (a replace does not move an article's creation date).
  if (current && article.createdAt === null) article.createdAt = current.row.created_at;
  return article;
}

export function urlSettingsOf(project: UrlSettings): UrlSettings {
  return usableUrlSettings(project);
}

/** JSON Merge Patch (RFC 7396): members of the patch replace the target's, null removes one, objects merge. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/** A patch must be an object: a whole-document replacement is what PUT is for. */
export function patchObject(body: unknown): Record<string, unknown> {
  return requireObject(body);
}

/** The tag a body describes (`name`, `slug`, `color`, `icon`), validated as tags.yaml's entries are. */
export function tagFromBody(body: unknown): TagInput {
  const data = { ...requireObject(body) };
  for (const field of readOnlyTagFields) delete data[field];
  const { ctx, issues } = pathContext();
  const [tag] = validateTagList(
    [data],
    ctx,
    () => ctx,
    () => 'body',
  );
  if (!tag || ctx.problems.length > 0) throw new ValidationError(issues());
  return tag;
}
