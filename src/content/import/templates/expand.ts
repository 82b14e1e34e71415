// Template syntax (Hugo shortcodes, Liquid and Nunjucks tags, MDX) expanded at import into the Markdown
// that is stored, as each generator renders it (front ends render `content` themselves).
// What cannot be rendered at import is reported with file:line and never left as template delimiters.
//
// Warning kinds: unknown-shortcode (a shortcode or tag that is neither built in nor the site's, an
// include, a delimiter opening nothing valid), site-shortcode (one of options.siteShortcodes),
// shortcode-option-dropped (a highlight option Markdown cannot hold), unknown-link (a ref, relref,
// link or post_url that resolveRef cannot match), embed-as-link (an embed rendered from the network at
// build time), template-expression (a Liquid/Nunjucks value the body does not give), template-logic
// (control flow: its tags removed, the text inside kept), mdx-component, mdx-expression.

import type { ImportProblem } from '../records.ts';
import { reporterFor } from './common.ts';
import { expandHugo } from './hugo.ts';
import { expandMdx } from './mdx.ts';
import { expandTags } from './tags.ts';

export type TemplateDialect = 'hugo' | 'liquid' | 'nunjucks' | 'mdx';

export interface TemplateContext {
  /** The file as reported (site-relative, posix), for warnings. */
  file: string;
  /** The line number in the file of the body's first line (after front matter), so warnings say file:line. */
  firstBodyLine: number;
  /** Dialects to expand, in order (Eleventy .md: ['liquid'] by default or ['nunjucks'] per markdownTemplateEngine;
   *  an .mdx file: ['mdx'], a Hugo file: ['hugo']). */
  dialects: TemplateDialect[];
  /** A ref/relref/link/post_url target (as written) → the target article's URL (ref, link: absolute URL when the
   *  site has one) or path (relref); null when no article matches (then warn kind `unknown-link`). */
  resolveRef(target: string, kind: 'ref' | 'relref' | 'link' | 'post_url'): string | null;
  /** A figure/image src → its URL (page-bundle resources resolve against the article URL); identity if absent. */
  resolveResource?(src: string): string;
  /** Site options read from the generator's config. */
  options?: {
    /** Hugo [privacy.youtube] privacyEnhanced → www.youtube-nocookie.com */
    youtubePrivacyEnhanced?: boolean;
    /** Hugo [privacy.vimeo] enableDNT → dnt=1 */
    vimeoDnt?: boolean;
    /** Names of the site's own shortcodes (Hugo layouts/_shortcodes/*.html, Eleventy addShortcode names): kept as
     *  unknown-but-defined (report kind `site-shortcode`, text removed or kept per the fixture). */
    siteShortcodes?: string[];
    /** Values the templates may read by name, as the reader knows them (an extension of the interface):
     *  Liquid `site.baseurl`, `site.url`, `page.title`; Eleventy's `metadata.url`; Hugo's `param` names
     *  (`author`). A name not given is reported (`template-expression`) and removed. */
    variables?: Record<string, string | number | boolean | null>;
  };
}

export interface Expanded {
  /** Markdown (with inline HTML where the generator renders HTML) with every template delimiter gone. */
  text: string;
  /** Each with file, line, message and kind. */
  warnings: ImportProblem[];
}

export function expandTemplates(body: string, context: TemplateContext): Expanded {
  const warnings: ImportProblem[] = [];
  let text = body;
  for (const dialect of context.dialects) {
    // Lines are counted in the text each dialect reads; the first dialect reads the body as written.
    const reporter = reporterFor(text, context.file, context.firstBodyLine, warnings);
    if (dialect === 'hugo') text = expandHugo(text, context, reporter);
    else if (dialect === 'liquid' || dialect === 'nunjucks')
      text = expandTags(text, dialect, context, reporter);
    else text = expandMdx(text, reporter);
  }
  return { text, warnings };
}
