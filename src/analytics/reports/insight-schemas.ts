// TypeBox schemas of the insights endpoints (time series, breakdowns, article reading, realtime).
import { Type } from 'typebox';
import { Nullable, StringEnum, Timestamp } from '../../http/schema-helpers.ts';
import { breakdownDimensions, maxSpanDays } from '../insight-rules.ts';
import { includeTest } from './schemas.ts';

const Day = (description: string) => Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description });

const periodQuery = {
  days: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 365,
      description:
        'Days included: today (UTC) and the `days − 1` before it. Default 30 when neither `days` nor `from` is given; not together with `from`/`to`',
    }),
  ),
  from: Type.Optional(
    Day(
      `First day included (UTC, YYYY-MM-DD); not after \`to\` nor today; at most ${maxSpanDays} days before \`to\``,
    ),
  ),
  to: Type.Optional(Day('Last day included (UTC, YYYY-MM-DD), not after today; default today; needs `from`')),
  includeTest,
};

const slug = Type.String({ minLength: 1, maxLength: 1000 });

export const SeriesQuery = Type.Object({
  ...periodQuery,
  interval: Type.Optional(
    StringEnum(['hour', 'day'], {
      description:
        'Bucket size. Default `hour` for periods of up to 2 days, else `day`; `hour` is refused beyond 2 days',
    }),
  ),
  slug: Type.Optional({ ...slug, description: 'Restrict to one article (404 when unknown)' }),
});

export const BreakdownParams = Type.Object({
  dimension: StringEnum(breakdownDimensions, { description: 'What the page views are broken down by' }),
});

export const BreakdownQuery = Type.Object({
  ...periodQuery,
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Default 1' })),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 1000,
      description: 'Values per page, default 100. A CSV export without `page` and `limit` holds every value',
    }),
  ),
  format: Type.Optional(
    StringEnum(['json', 'csv'], {
      description: 'Answer format; without it, an `Accept: text/csv` header asks for CSV',
    }),
  ),
});

export const ReadingParams = Type.Object({ slug });
export const ReadingQuery = Type.Object(periodQuery);
export const RealtimeQuery = Type.Object({ includeTest });

const Period = Type.Object({
  days: Type.Integer({ description: 'Days in the period' }),
  from: Type.String({ description: 'First day, YYYY-MM-DD' }),
  to: Type.String({ description: 'Last day, YYYY-MM-DD' }),
  startDate: { ...Timestamp, description: '00:00 UTC of the first day' },
  endDate: {
    ...Timestamp,
    description: 'The time of the request when the period ends today, else the end of `to`',
  },
});

export const SeriesAnswer = Type.Object({
  data: Type.Object({
    period: Period,
    interval: StringEnum(['hour', 'day']),
    slug: Nullable(Type.String(), { description: 'The article, or null for the whole project' }),
    points: Type.Array(
      Type.Object({
        time: { ...Timestamp, description: 'Start of the hour or day (UTC)' },
        views: Type.Integer(),
        visitors: Type.Integer({ description: 'Distinct visitor ids in the hour or day' }),
        avgTimeOnPage: Type.Number({ description: 'Seconds, 1 decimal; 0 without views' }),
        avgScrollDepth: Type.Number({ description: 'Percent, 1 decimal; 0 without views' }),
      }),
    ),
  }),
});

export const BreakdownAnswer = Type.Object({
  data: Type.Array(
    Type.Object({
      value: Type.String(),
      views: Type.Integer({
        description: 'Page views; for `event`, page views with at least one event of the type',
      }),
      visitors: Type.Integer({ description: 'Sum over the days of the distinct visitor ids of each day' }),
      events: Type.Optional(Type.Integer({ description: '`event` only: events of the type' })),
    }),
  ),
  meta: Type.Object({
    dimension: StringEnum(breakdownDimensions),
    period: Period,
    page: Type.Integer(),
    limit: Type.Integer(),
    total: Type.Integer({ description: 'Distinct values in the period' }),
    totalPages: Type.Integer(),
  }),
});

const DropOffPoint = Type.Object({
  position: Type.Integer({ description: 'Percent of the text: 0, 10, …, 100' }),
  readers: Type.Integer({ description: 'Page views whose furthest point is at least `position`' }),
  percentage: Type.Number({ description: 'readers / pageViews × 100, 1 decimal' }),
});

export const ReadingAnswer = Type.Object({
  data: Type.Object({
    article: Type.Object({ slug: Type.String(), title: Type.String(), readTimeMinutes: Type.Integer() }),
    period: Period,
    pageViews: Type.Integer(),
    dropOff: Type.Array(DropOffPoint),
    readingTime: Type.Object({
      estimatedSeconds: Type.Integer({ description: 'readTimeMinutes × 60' }),
      medianSeconds: Nullable(Type.Integer(), {
        description: 'Median time on page (lower median), rounded down to its bucket; null without views',
      }),
      medianToEstimate: Nullable(Type.Number(), {
        description: 'medianSeconds / estimatedSeconds, 2 decimals; null without views or estimate',
      }),
    }),
    readRatio: Type.Object({
      reads: Type.Integer({
        description: 'Page views with scrollDepth ≥ 90 and timeOnPage ≥ half the estimate',
      }),
      pageViews: Type.Integer(),
      percentage: Type.Number({ description: 'reads / pageViews × 100, 1 decimal' }),
    }),
  }),
});

export const RealtimeAnswer = Type.Object({
  data: Type.Object({
    visitors: Type.Integer({ description: 'Distinct visitor ids of the page views of the window' }),
    pageViews: Type.Integer(),
    windowMinutes: Type.Integer(),
    since: Timestamp,
    until: Timestamp,
  }),
});
