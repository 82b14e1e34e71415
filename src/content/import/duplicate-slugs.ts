// A slug shared by several articles of one source: reported on each of them, naming the others,
// and none of them is imported.
import type { ArticleOutcome } from './article-rules.ts';
import { sortByLine } from './check-kit.ts';
import type { ImportProblem } from './records.ts';

/** Reports every article that shares a slug with another one, on each side, naming the others. */
function duplicateSlugProblems(
  outcomes: readonly { file: string; outcome: ArticleOutcome }[],
): Map<string, ImportProblem[]> {
  const bySlug = new Map<string, { file: string; outcome: ArticleOutcome }[]>();
  for (const entry of outcomes) {
    if (entry.outcome.slug === undefined) continue;
    const list = bySlug.get(entry.outcome.slug) ?? [];
    list.push(entry);
    bySlug.set(entry.outcome.slug, list);
  }
  const result = new Map<string, ImportProblem[]>();
  for (const [slug, entries] of bySlug) {
    if (entries.length < 2) continue;
    for (const entry of entries) {
      const others = entries.filter((e) => e !== entry).map((e) => e.file);
      const list = result.get(entry.file) ?? [];
      list.push({
        file: entry.file,
        line: entry.outcome.slugLine(),
        message: `duplicate slug ${JSON.stringify(slug)}: also used by ${others.join(', ')}`,
      });
      result.set(entry.file, list);
    }
  }
  return result;
}

/** The problems of every entry, a duplicate slug's included; an entry with one loses its article. */
export function mergeDuplicates(entries: { file: string; outcome: ArticleOutcome }[]): ImportProblem[] {
  const duplicates = duplicateSlugProblems(entries);
  const problems: ImportProblem[] = [];
  for (const entry of entries) {
    const extra = duplicates.get(entry.file);
    if (extra) {
      entry.outcome.problems.push(...extra);
      sortByLine(entry.outcome.problems);
      delete entry.outcome.article;
    }
    problems.push(...entry.outcome.problems);
  }
  return problems;
}
