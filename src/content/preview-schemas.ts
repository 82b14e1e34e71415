// The draft preview shapes of the API: the token parameter of the reads, and the previews endpoints.
import { Type } from 'typebox';
import { Nullable, StringEnum, Timestamp } from '../http/schema-helpers.ts';

/** Longer than any token this server makes (preview-tokens.ts); a longer value is a 400. */
export const maxTokenLength = 256;

/** The `preview` query parameter of GET /v1/articles/:slug and GET /v1/seo/article/:slug. */
export const PreviewToken = Type.String({
  minLength: 1,
  maxLength: maxTokenLength,
  description:
    'A draft preview token (`fpv_…`, from `POST /v1/articles/:slug/previews` or `folio preview create`): with it, a public key reads that one article whatever its status, in full. The answer is `Cache-Control: private, no-store`, without ETag. A token that is malformed, tampered with, expired, revoked or of another project is a 403 naming `preview` (`details: { field: "preview", reason: "invalid" | "expired" | "revoked" }`).',
});

export const Preview = Type.Object(
  {
    id: Type.String({ description: 'pv_ and 16 hex digits' }),
    articleSlug: Type.String({ description: "the article's slug ('' once the article is deleted)" }),
    createdAt: Timestamp,
    expiresAt: Timestamp,
    revokedAt: Nullable(Timestamp),
    status: StringEnum(['active', 'expired', 'revoked']),
  },
  { $id: 'Preview', title: 'Preview' },
);

export const CreatedPreview = Type.Object({
  ...Preview.properties,
  token: Type.String({ description: 'The token, shown only in this answer (it is not stored)' }),
  url: Type.Optional(
    Type.String({ description: "The article's URL with `?preview=TOKEN`, when the project has a site URL" }),
  ),
});

export const CreatePreviewBody = Type.Object(
  {
    expiresIn: Type.Optional(
      Type.Union([Type.String({ maxLength: 32 }), Type.Number()], {
        description:
          'How long the token reads the article: seconds (`3600` or `"3600"`) or digits and a unit, `s`, `m`, `h`, `d` or `w` (`30m`, `12h`, `7d`, `2w`); from 1 minute to 90 days; default 7 days',
      }),
    ),
  },
  { additionalProperties: true },
);
