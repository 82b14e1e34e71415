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
}

export interface ContentSource {
  tags: TagInput[];
  articles: ArticleInput[];
  /** Things ignored or filled in, reported but not refused (unknown fields, a publishedAt supplied). */
  warnings?: ImportProblem[];
}

export interface ImportProblem {
  file: string;
  line: number;
  message: string;
}

export interface ReadOptions {
  /** Refuse unknown fields instead of warning about them and ignoring them. */
  strict?: boolean;
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
