// The one place the client reads the server's types: each shape of the API as the server's own
// TypeBox schemas give it (type-only imports, erased at run time). The package build replaces this
// file by the same types written out plainly, so that an installed client needs no Folio checkout.
import type { Static } from 'typebox';
import type {
  BreakdownAnswer,
  breakdownDimensions,
  FunnelAnswer,
  ReadingAnswer,
  RealtimeAnswer,
  SeriesAnswer,
  StatsAnswer,
  TrackBody,
  TrackCreated,
  UpdateBody,
} from '../../../src/analytics/public-schemas.ts';
import type {
  Article,
  PageMeta,
  Redirect,
  SelectableField,
  Tag,
  articleSortFields,
  listDefaultFields,
  singleDefaultFields,
  tagSortFields,
} from '../../../src/content/schemas.ts';
import type { CreatedPreview, Preview } from '../../../src/content/preview-schemas.ts';
import type { RevisionDetail, RevisionSummary } from '../../../src/content/revision-schemas.ts';
import type { ProjectInfo } from '../../../src/projects/schemas.ts';
import type { CreatedWebhook, Delivery, DeliveryPage, Webhook } from '../../../src/webhooks/schemas.ts';
import type { JsonFeedDocument, SeoArticle, SitemapJson, StructuredData } from '../../../src/seo/schemas.ts';

/** An article with every field the API can return: only `id` is always there. */
export type ArticleFields = Static<typeof Article>;
export type Tag = Static<typeof Tag>;
export type PageMeta = Static<typeof PageMeta>;
/** A former path of a published article and where it moved (`GET /v1/redirects`). */
export type Redirect = Static<typeof Redirect>;
export type ProjectInfo = Static<typeof ProjectInfo>;
export type SeoArticle = Static<typeof SeoArticle>;
export type StructuredData = Static<typeof StructuredData>;
export type SitemapJson = Static<typeof SitemapJson>;
/** A JSON Feed 1.1 document (`/v1/seo/feed.json`). */
export type JsonFeed = Static<typeof JsonFeedDocument>;
export type TrackBody = Static<typeof TrackBody>;
/**
 * A visitor a server tracks on behalf of (secret keys only): the address and User-Agent of the
 * request the server received, so the view is judged and counted as the visitor's, not the server's.
 */
export type TrackVisitor = NonNullable<Static<typeof TrackBody>['visitor']>;
export type TrackCreated = Static<typeof TrackCreated>;
export type PageViewUpdate = Static<typeof UpdateBody>;
export type Stats = Static<typeof StatsAnswer>['data'];
export type Funnel = Static<typeof FunnelAnswer>;
export type TimeSeries = Static<typeof SeriesAnswer>['data'];
export type Breakdown = Static<typeof BreakdownAnswer>;
export type BreakdownDimension = (typeof breakdownDimensions)[number];
export type ArticleReading = Static<typeof ReadingAnswer>['data'];
export type Realtime = Static<typeof RealtimeAnswer>['data'];
export type { SelectableField };
/** The fields of each item of an article list when `select` does not change them. */
export type ListField = (typeof listDefaultFields)[number];
/** The fields of a single article when `select` does not change them. */
export type SingleField = (typeof singleDefaultFields)[number];
export type ArticleSortField = (typeof articleSortFields)[number];
export type TagSortField = (typeof tagSortFields)[number];
/** One former version of an article (`GET /v1/articles/:slug/revisions`). */
export type RevisionSummary = Static<typeof RevisionSummary>;
/** A revision with its snapshot: the article's writable fields as they were. */
export type Revision = Omit<Static<typeof RevisionDetail>, 'snapshot'> & {
  snapshot: Record<string, unknown>;
};
/** A draft preview, without its token. */
export type Preview = Static<typeof Preview>;
/** A preview just created: its token is shown only here. */
export type CreatedPreview = Static<typeof CreatedPreview>;
export type Webhook = Static<typeof Webhook>;
/** A webhook just created: its `whsec_` secret is shown only here. */
export type CreatedWebhook = Static<typeof CreatedWebhook>;
export type WebhookDelivery = Static<typeof Delivery>;
export type WebhookDeliveryPage = Static<typeof DeliveryPage>;
