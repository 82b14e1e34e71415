// The project endpoint's answer: one source for its validation, serialisation, OpenAPI document
// and the typed client.
import { Type } from 'typebox';
import { Nullable, Timestamp } from '../http/schema-helpers.ts';

export const ProjectInfo = Type.Object(
  {
    project: Type.Object({
      id: Type.String(),
      name: Type.String(),
      slug: Type.String(),
      description: Type.String(),
      siteUrl: Nullable(Type.String()),
      logoUrl: Nullable(Type.String()),
      urlPattern: Type.String({
        description:
          'the path of an article without a path of its own: tokens `:slug`, `:year`, `:month`, `:day` (of `publishedAt` in `timeZone`) and `:section`; default `/:slug`',
      }),
      timeZone: Type.String({ description: 'IANA time zone of the URL pattern’s dates; default `UTC`' }),
      defaultAuthor: Nullable(Type.Object({ name: Type.String(), image: Nullable(Type.String()) }), {
        description: 'the author of imported articles that name none (else the project’s name)',
      }),
      createdAt: Timestamp,
      updatedAt: Timestamp,
    }),
    stats: Type.Object({
      totalArticles: Type.Integer({ description: 'all articles (for a public key: the published ones)' }),
      publishedArticles: Type.Integer({ description: 'articles whose `published` is true' }),
      totalViews: Type.Integer({
        description:
          'sum of viewCount (for a public key: of the published articles); like it, may lag tracked page views by up to 3 seconds',
      }),
      storageUsed: Type.Optional(
        Type.String({
          description:
            'UTF-8 bytes of all stored article text, in decimal units, e.g. `1.5 KB`; absent for a public key',
        }),
      ),
      storageLimit: Type.Optional(Type.String({ description: 'e.g. `500 MB`; absent for a public key' })),
    }),
  },
  { $id: 'ProjectInfo' },
);
