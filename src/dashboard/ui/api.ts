// What the dashboard reads, through the typed client: each panel's data in the shape it draws.
import {
  type BreakdownDimension,
  FolioClient,
  type ProjectInfo,
} from '../../../packages/client/src/index.ts';
import type { Series } from './charts.ts';

export interface Breakdown {
  name: string;
  views: number;
  visitors: number;
}

export interface Overview {
  summary: { views: number; visitors: number; viewsPerVisitor: number };
  engagement: { avgTimeOnPage: number; avgScrollDepth: number; bounceRate: number; engagementRate: number };
  topArticles: { slug: string; title: string; views: number }[];
  series: Series;
  sources: Breakdown[];
  countries: Breakdown[];
  devices: Breakdown[];
}

export interface ArticleInsights {
  funnel: { depth: number; views: number; percent: number }[];
  dropOff: { positions: number[]; shares: number[] };
  reading: { medianSeconds: number | null; estimatedSeconds: number; readRatio: number };
}

export interface DashboardApi {
  project(): Promise<ProjectInfo>;
  overview(days: number): Promise<Overview>;
  article(slug: string, days: number): Promise<ArticleInsights>;
  realtime(): Promise<number>;
}

const panelRows = 10;

export function connect(origin: string, key: string): DashboardApi {
  const client = new FolioClient({ baseUrl: origin, key });
  const breakdown = async (dimension: BreakdownDimension, days: number): Promise<Breakdown[]> => {
    const answer = await client.analytics.breakdown(dimension, { days, limit: panelRows });
    return answer.data.map((row) => ({ name: row.value, views: row.views, visitors: row.visitors }));
  };
  return {
    project: () => client.project(),
    async overview(days) {
      const [stats, funnel, series, sources, countries, devices] = await Promise.all([
        client.analytics.stats({ days }),
        client.analytics.funnel({ days }),
        client.analytics.timeseries({ days }),
        breakdown('source', days),
        breakdown('country', days),
        breakdown('device', days),
      ]);
      return {
        summary: {
          views: stats.summary.totalViews,
          visitors: stats.summary.uniqueVisitors,
          viewsPerVisitor: stats.summary.avgViewsPerVisitor,
        },
        engagement: funnel.engagement,
        topArticles: stats.topArticles,
        series: {
          times: series.points.map((point) => Date.parse(point.time) / 1000),
          views: series.points.map((point) => point.views),
          visitors: series.points.map((point) => point.visitors),
          hourly: series.interval === 'hour',
        },
        sources,
        countries,
        devices,
      };
    },
    async article(slug, days) {
      const [funnel, reading] = await Promise.all([
        client.analytics.funnel({ days, slug }),
        client.analytics.reading(slug, { days }),
      ]);
      const depths = [25, 50, 75, 90] as const;
      return {
        funnel: depths.map((depth) => ({
          depth,
          views: funnel.funnel[`reached${depth}`],
          percent: funnel.funnel.percentages[`reached${depth}`],
        })),
        dropOff: {
          positions: reading.dropOff.map((point) => point.position),
          shares: reading.dropOff.map((point) => point.percentage),
        },
        reading: {
          medianSeconds: reading.readingTime.medianSeconds,
          estimatedSeconds: reading.readingTime.estimatedSeconds,
          readRatio: reading.readRatio.percentage,
        },
      };
    },
    realtime: async () => (await client.analytics.realtime()).visitors,
  };
}
