// What the rest of Folio may use of analytics: app.ts, server.ts, the CLI and the other features
// import from here only (browser code from public-schemas.ts), so that the flows inside (ingest/,
// rollups/, reports/) can change without reaching past these two files.

/** The analytics plugin (tracking, roll-ups, cleanup, reports) and its options, for app.ts. */
export { type AnalyticsOptions, analyticsRoutes } from './routes.ts';
/** The schemas of the tracking bodies and the report answers (browser code: public-schemas.ts). */
export type * from './public-schemas.ts';
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
