// TypeBox schemas of the statistics and funnel endpoints: the source of their validation,
// serialization and OpenAPI description.
import { Type } from 'typebox';
import { Timestamp } from '../../http/schema-helpers.ts';

/** The period of an answer when the request names none (Ajv fills it in from the schema). */
export const defaultPeriodDays = 30;

const days = Type.Optional(
  Type.Integer({
    minimum: 1,
    maximum: 365,
    default: defaultPeriodDays,
    description: 'Days included: today (UTC) and the `days − 1` before it',
  }),
);

/** Shared by every report: the page views of test keys count only when asked for. */
export const includeTest = Type.Optional(
  Type.Boolean({
    default: false,
    description:
      'Count the page views tracked with test keys too (`folio keys create --test`); by default they count nowhere',
  }),
);

export const StatsQuery = Type.Object({ days, includeTest });
export const FunnelQuery = Type.Object({
  days,
  includeTest,
  slug: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'Restrict to one article' })),
});

const Period = Type.Object({
  days: Type.Integer(),
  startDate: { ...Timestamp, description: '00:00 UTC of the first day' },
  endDate: { ...Timestamp, description: 'The time of the request' },
});

export const StatsAnswer = Type.Object({
  data: Type.Object({
    period: Period,
    summary: Type.Object({
      totalViews: Type.Integer(),
      uniqueVisitors: Type.Integer({
        description: 'Sum over the days of the distinct visitor ids of each day',
      }),
      avgViewsPerVisitor: Type.Number({ description: '2 decimals; 0 when there are no visitors' }),
    }),
    requestSource: Type.Object(
      { sdk: Type.Number(), direct: Type.Number() },
      { description: 'Percentages of the page views, 1 decimal; sdk = sent with an `X-Folio-Client` header' },
    ),
    topArticles: Type.Array(
      Type.Object({
        articleId: Type.String(),
        title: Type.String(),
        slug: Type.String(),
        views: Type.Integer(),
      }),
    ),
    topCountries: Type.Array(Type.Object({ country: Type.String(), views: Type.Integer() })),
  }),
});

const Thresholds = Type.Object({
  reached25: Type.Number(),
  reached50: Type.Number(),
  reached75: Type.Number(),
  reached90: Type.Number(),
});

export const FunnelAnswer = Type.Object({
  period: Period,
  funnel: Type.Object({
    pageViews: Type.Integer(),
    reached25: Type.Integer({ description: 'Page views with scrollDepth ≥ 25' }),
    reached50: Type.Integer(),
    reached75: Type.Integer(),
    reached90: Type.Integer(),
    percentages: { ...Thresholds, description: 'reachedN / pageViews × 100, 1 decimal' },
  }),
  engagement: Type.Object({
    avgTimeOnPage: Type.Number({ description: 'Seconds, 1 decimal' }),
    avgScrollDepth: Type.Number({ description: 'Percent, 1 decimal' }),
    bounceRate: Type.Number({ description: 'Percent of page views that bounced, 1 decimal' }),
    engagementRate: Type.Number({
      description: 'Percent with timeOnPage ≥ 10 or scrollDepth ≥ 50, 1 decimal',
    }),
  }),
});
