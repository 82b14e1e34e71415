// The OpenAPI prose of the article and tag routes: what each endpoint promises beyond its schemas.
// Each route appends the public-key rules of routes.ts.

const cachingRule = `Answers are cached until the project’s content changes (seen on the next request, from any instance or the CLI); \`viewCount\` may lag tracked page views by up to 3 seconds (they are summed within 0.5 s, and cached answers refresh their counts at most every 2 s). Answers of 1 KB or more are compressed (br or gzip) when \`Accept-Encoding\` allows.`;

export const listArticlesDescription = `Paginated, filtered and sorted list. All filters combine with AND. Tag names match case-insensitively after trimming; a name that matches no tag matches no article. A page past the end returns \`data: []\` with correct \`meta\`. \`meta.total\` is always exact: it is counted from bitmaps of the project's articles per stored status, tag, word and piece of text of up to three characters, which every import keeps in the same transaction as the articles, so a count never reads the matching articles (see \`search\` for the rare terms that are matched in the texts); a scheduled article counts as \`published\` from its \`publishedAt\` on. Unknown query parameters are a 400 naming them. ${cachingRule}`;

export const getArticleDescription = `Any status for a secret key; published only for a public key. 404 with message \`Article 'SLUG' not found\` when the project has no such slug (or, for a public key, no such published article). ${cachingRule}`;

export const listTagsDescription = `\`meta.total\` is the number of tags of the project, whatever \`limit\` is. Ties are broken by name (ascending). For a public key \`articleCount\` counts published articles only (as with \`published=true\`); tags themselves are listed whatever they carry, as Ghost's Content API does.`;

export const getTagDescription = `Finds the tag by name or by slug: the parameter is URL-decoded, trimmed and matched against names case-insensitively, else against slugs exactly (\`/v1/tags/Safety%20Weather\` and \`/v1/tags/safety-weather\` are one tag); a tag whose name matches wins over another whose slug does. 404 \`Tag not found\` otherwise. For a public key \`articleCount\` counts published articles only.`;
