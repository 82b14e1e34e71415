// The webhook events of article and tag changes, written to the outbox in the change's transaction.
import type { OutboxEvent } from '../db/outbox.ts';
import type { Project } from '../db/schema.ts';
import { reportedStatus } from './article-status.ts';
import { articleUrl, usableUrlSettings } from './article-url.ts';

export interface EventArticle {
  id: string;
  slug: string;
  title: string;
  status: 'draft' | 'published' | 'archived';
  published_at: string | null;
  created_at: string;
  path: string | null;
  section?: string | null;
  version: number;
}

/** `{ id, slug, title, status, publishedAt, url, version }`, and `previousSlug` after a slug change. */
export function articleEvent(
  project: Project,
  type: 'article.updated' | 'article.unpublished' | 'article.deleted',
  article: EventArticle,
  now: string,
  previousSlug?: string,
): OutboxEvent {
  const base = project.site_url?.replace(/\/+$/, '') ?? null;
  return {
    projectId: project.id,
    type,
    data: {
      id: article.id,
      slug: article.slug,
      title: article.title,
      status: reportedStatus(article.status, article.published_at, now),
      publishedAt: article.published_at,
      url: articleUrl(base, usableUrlSettings(project), article),
      version: Number(article.version),
      ...(previousSlug !== undefined && previousSlug !== article.slug ? { previousSlug } : {}),
    },
  };
}

export function tagEvent(
  projectId: string,
  type: 'tag.created' | 'tag.updated' | 'tag.deleted',
  tag: { id: string; name: string; slug: string },
): OutboxEvent {
  return { projectId, type, data: { id: tag.id, name: tag.name, slug: tag.slug } };
}

/**
 * The events of a stored article's change: `article.updated`, and `article.unpublished` when a
 * published article becomes a draft or is archived.
 */
export function changeEvents(
  project: Project,
  before: EventArticle,
  after: EventArticle,
  now: string,
): OutboxEvent[] {
  const events = [articleEvent(project, 'article.updated', after, now, before.slug)];
  if (before.status === 'published' && after.status !== 'published')
    events.push(articleEvent(project, 'article.unpublished', after, now, before.slug));
  return events;
}
