// What readers without access see of a members-only or paid article: the part of
// its content before the `<!--members-only-->` marker (Ghost's public preview divider), nothing
// without one. Public keys and feeds read this teaser; secret keys read everything.
import { sanitizedHtml } from './html.ts';

export type ArticleVisibility = 'public' | 'members' | 'paid';

/** The marker as Ghost writes it, with any spacing inside the comment. */
const marker = /<!--\s*members-only\s*-->/;

/** Whether readers without access see only the teaser of an article of this visibility. */
export function isRestricted(visibility: string): boolean {
  return visibility !== 'public';
}

/** The Markdown before the members-only marker; empty when there is none. */
export function teaserContent(content: string): string {
  const found = marker.exec(content);
  return found === null ? '' : content.slice(0, found.index).trimEnd();
}

/** The teaser as sanitised HTML, as an article's `html` is rendered. */
export function teaserHtml(content: string): string {
  const teaser = teaserContent(content);
  return teaser === '' ? '' : sanitizedHtml(teaser);
}
