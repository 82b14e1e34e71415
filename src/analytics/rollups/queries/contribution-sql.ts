// The rules of contribution.ts as SQL aggregates over page-view rows, in the order of
// contributionFields: what PostgreSQL batches and the rebuild of the rollups compute in the database.
import {
  bounceBelowMs,
  contributionFields,
  engagedFromCenti,
  engagedFromMs,
  funnelSteps,
} from '../../contribution.ts';

const count = (condition: string) => `sum(case when ${condition} then 1 else 0 end)`;

const sums: Record<(typeof contributionFields)[number], string> = {
  views: 'count(*)',
  sdk_views: count(`source = 'sdk'`),
  time_on_page_ms: 'sum(time_on_page_ms)',
  scroll_depth_centi: 'sum(scroll_depth_centi)',
  bounced: count(`bounced = 1 or (bounced is null and time_on_page_ms < ${bounceBelowMs})`),
  engaged: count(`time_on_page_ms >= ${engagedFromMs} or scroll_depth_centi >= ${engagedFromCenti}`),
  reached25: count(`scroll_depth_centi >= ${funnelSteps[0] * 100}`),
  reached50: count(`scroll_depth_centi >= ${funnelSteps[1] * 100}`),
  reached75: count(`scroll_depth_centi >= ${funnelSteps[2] * 100}`),
  reached90: count(`scroll_depth_centi >= ${funnelSteps[3] * 100}`),
};

/** `count(*) as views, … as reached90`: the rollup counters of the grouped rows. */
export const contributionSums = contributionFields.map((field) => `${sums[field]} as ${field}`).join(', ');
