// What the rest of Folio may use of analytics: app.ts, server.ts, the CLI and the other features
// (tracker/, dashboard/) import from here only, so that the flows inside (ingest/, rollups/,
// reports/) can change without reaching past this file.

/** The analytics plugin (tracking, roll-ups, cleanup, reports) and its options, for app.ts. */
export { type AnalyticsOptions, analyticsRoutes } from './routes.ts';
/** The tracking bodies, for the client package (the browser tracker uses public-schemas.ts). */
export type { TrackBodyType, UpdateBodyType } from './public-schemas.ts';
export type { TrackBody, TrackCreated, UpdateBody } from './ingest/schemas.ts';
/** The answers of the report endpoints and the breakdown dimensions, for the client package. */
export type { FunnelAnswer, StatsAnswer } from './reports/schemas.ts';
export type {
  BreakdownAnswer,
  ReadingAnswer,
  RealtimeAnswer,
  SeriesAnswer,
} from './reports/insight-schemas.ts';
export type { breakdownDimensions } from './insight-rules.ts';
/** The page-view batches published on a diagnostics channel, and the cleanup's metrics, for the metrics. */
export { type BatchEvent, batchChannelName } from './ingest/page-view-writer.ts';
export { registerCleanupMetrics } from './rollups/cleanup-metrics.ts';
/** The recorded retention and the rebuild of the rollups, for the server's start and the CLI. */
export {
  firstRebuiltDay,
  type RecordedRetention,
  recordedRetention,
  recordRetentionDays,
} from './rollups/queries/retention-setting.ts';
export { rebuildRollups } from './rollups/queries/rebuild-rollups.ts';
/** The UTC day of an instant, as the rollups count days. */
export { utcDay } from './days.ts';
