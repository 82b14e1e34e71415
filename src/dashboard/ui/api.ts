// What the dashboard reads, through the typed client: each panel's data in the shape it draws.
import { FolioClient, type ProjectInfo } from '../../../packages/client/src/index.ts';
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

export function connect(origin: string, key: string): DashboardApi {
  const client = new FolioClient({ baseUrl: origin, key });
  return {
    project: () => client.project(),
    async overview(days) {
      const [stats, funnel] = await Promise.all([
        client.analytics.stats({ days }),
        client.analytics.funnel({ days }),
      ]);
      return {
        summary: {
          views: stats.summary.totalViews,
          visitors: stats.summary.uniqueVisitors,
          viewsPerVisitor: stats.summary.avgViewsPerVisitor,
        },
        engagement: funnel.engagement,
        topArticles: stats.topArticles,
        series: { times: [], views: [], visitors: [], hourly: days <= 2 },
        sources: [],
        countries: stats.topCountries.map((row) => ({ name: row.country, views: row.views, visitors: 0 })),
        devices: [],
      };
    },
    async article(slug, days) {
      const funnel = await client.analytics.funnel({ days, slug });
      const depths = [25, 50, 75, 90] as const;
      return {
        funnel: depths.map((depth) => ({
          depth,
          views: funnel.funnel[`reached${depth}`],
          percent: funnel.funnel.percentages[`reached${depth}`],
        })),
        dropOff: { positions: [], shares: [] },
        reading: { medianSeconds: null, estimatedSeconds: 0, readRatio: 0 },
      };
    },
    realtime: async () => 0,
  };
}
