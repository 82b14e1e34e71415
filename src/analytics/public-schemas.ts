// The part of analytics' public face that browser code may import: the schemas of the tracking
// bodies and of the report answers, from modules that import nothing but TypeBox and each other.
// The browser tracker and the dashboard (through the client package) are type-checked without
// Node's types, so they cannot reach public.ts, which also carries the server plugin.
export type { TrackBody, TrackBodyType, TrackCreated, UpdateBody, UpdateBodyType } from './ingest/schemas.ts';
export type { FunnelAnswer, StatsAnswer } from './reports/schemas.ts';
export type {
  BreakdownAnswer,
  ReadingAnswer,
  RealtimeAnswer,
  SeriesAnswer,
} from './reports/insight-schemas.ts';
export type { breakdownDimensions } from './insight-rules.ts';
