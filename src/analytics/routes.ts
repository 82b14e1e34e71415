// Routes of analytics. The track endpoints sit in a plugin of their own, because browsers need more
// of them than the rest of the API takes: `text/plain` JSON bodies and the key as `?key=` (what
// navigator.sendBeacon can send), CORS, and strict JSON types.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/database.ts';
import { publishedOnly } from '../http/auth.ts';
import { answerPreflights } from '../http/cors.ts';
import { ErrorBody } from '../http/errors.ts';
import { HttpError, ValidationError } from '../errors.ts';
import { bundledGeoDatabasePath, CountryLookup } from './geo.ts';
import { insightRoutes } from './insight-routes.ts';
import { PageViewWriter } from './page-view-writer.ts';
import { defaultRollupDelayMs, onRolledUpViews, scheduleRollUp } from './rollup-queue.ts';
import { startCleanup } from './retention.ts';
import { DailySalts } from './salts.ts';
import {
  BotIgnored,
  FunnelAnswer,
  FunnelQuery,
  KeyQuery,
  PageViewParams,
  StatsAnswer,
  StatsQuery,
  TrackBody,
  type TrackBodyType,
  TrackCreated,
  TrackUpdated,
  UpdateBody,
  type UpdateBodyType,
} from './schemas.ts';
import { projectStats, scrollFunnel } from './stats.ts';
import { strictValidatorCompiler } from './strict-validator.ts';
import { type Sender, type TrackingDeps, trackPageView, updatePageView } from './tracking.ts';

export interface AnalyticsOptions {
  db: Db;
  /** An MMDB country database to use instead of the bundled DB-IP one. */
  geoipDatabase?: string | null;
  /** Days raw page views are kept (deleted hourly past that); none: kept forever. */
  retentionDays?: number | null;
  /** Told of each article whose view count grew (the answer cache refreshes view counts). */
  onViews?: (projectId: string, slug: string) => void;
  /** How soon after a tracking write the rollups and view counts include it (rollup-queue.ts). */
  rollupDelayMs?: number;
}

const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((status) => [status, ErrorBody]));

export async function analyticsRoutes(app: FastifyInstance, options: AnalyticsOptions): Promise<void> {
  const { db } = options;
  const deps: TrackingDeps = {
    db,
    writer: new PageViewWriter(db, { rollupDelayMs: options.rollupDelayMs }),
    salts: new DailySalts(db),
    geo: options.geoipDatabase
      ? new CountryLookup(options.geoipDatabase, { eager: true })
      : new CountryLookup(bundledGeoDatabasePath()),
  };
  const stopViews = options.onViews ? onRolledUpViews(db, options.onViews) : () => {};
  // Entries left queued by a process that stopped before rolling them up (a crash) are summed soon
  // after the server starts, not only with the next page view or statistics read.
  app.addHook('onListen', async () => void scheduleRollUp(db, options.rollupDelayMs ?? defaultRollupDelayMs));
  app.addHook('onClose', async () => {
    await deps.writer.close().catch((error: unknown) => {
      // The queued entries stay in the database: the next instance rolls them up.
      app.log.warn({ err: error }, 'page views not rolled up at close');
    });
    stopViews();
  });
  // The cleanup of visitor ids and expired page views runs beside a listening server, never in a
  // request (apps built for tests, which never listen, leave it to their own calls).
  let stopCleanup: (() => Promise<void>) | null = null;
  app.addHook('onListen', async () => {
    stopCleanup ??= startCleanup(db, options.retentionDays ?? null, app.log);
  });
  app.addHook('onClose', async () => stopCleanup?.());

  await app.register(async (track) => trackRoutes(track, deps));
  insightRoutes(app, db);

  app.get(
    '/v1/analytics/stats',
    {
      schema: {
        tags: ['Analytics'],
        summary: 'Page-view statistics of a period',
        description: [
          'Computed from daily rollups, so the answer takes milliseconds whatever the number of page views. Tracking writes are summed into the rollups in batches shortly after they are answered, and before any read of statistics: an answer counts every page view and update answered before it was asked.',
          'The period starts at 00:00 UTC of the day `days − 1` days before today and ends now; a page view belongs to it by its creation time.',
          '`uniqueVisitors` sums the distinct visitor ids of each day (ids change daily, so one person on two days counts twice, as in Plausible). `requestSource` percentages are rounded separately and may not add up to exactly 100.',
          '`topArticles`: the 10 articles with most views in the period, ties by slug; page views of an article that has since been removed count in `totalViews` but it is not listed. `topCountries`: the 10 countries with most views, ties by code; views without a country are left out.',
          'Rounding is half away from zero. Answers are not cached: they depend on the clock.',
        ].join('\n\n'),
        querystring: StatsQuery,
        response: { 200: StatsAnswer, ...errors(400, 401, 403, 429, 503) },
      },
    },
    async (request) => {
      const { days } = request.query as { days: number };
      return projectStats(db, request.auth.project, days, new Date());
    },
  );

  app.get(
    '/v1/analytics/funnel',
    {
      schema: {
        tags: ['Analytics'],
        summary: 'Scroll funnel and engagement of a period',
        description: [
          'Same period as the statistics. `reachedN` counts the page views whose deepest scroll is at least N percent; percentages are of `pageViews`, 1 decimal, 0 when there are none.',
          '`avgTimeOnPage` (seconds) and `avgScrollDepth` are means over the page views, 1 decimal. `bounceRate`: percentage of page views that bounced (`bounced` as last sent, else `timeOnPage < 5`). `engagementRate`: percentage with `timeOnPage ≥ 10` or `scrollDepth ≥ 50`.',
          '`slug` restricts every figure to one article of the project; an unknown slug is a 404. Rounding is half away from zero. The members are at the top level, without `data`.',
        ].join('\n\n'),
        querystring: FunnelQuery,
        response: { 200: FunnelAnswer, ...errors(400, 401, 403, 404, 429, 503) },
      },
    },
    async (request) => {
      const { days, slug } = request.query as { days: number; slug?: string };
      return scrollFunnel(db, request.auth.project, days, slug, new Date());
    },
  );
}

function senderOf(request: FastifyRequest): Sender {
  const userAgent = request.headers['user-agent'];
  return {
    project: request.auth.project,
    ip: request.ip,
    userAgent,
    fromSdk: request.headers['x-folio-client'] !== undefined,
    publishedOnly: publishedOnly(request),
    now: new Date(),
  };
}

const trackAccess = { access: 'public', keyInQuery: true, cors: 'track' } as const;
const bodyMediaTypes = ['application/json', 'text/plain'];

const browserNotes =
  'Secret and public keys, in `X-API-Key` or `Authorization: Bearer`; a public key also in the `key` query parameter. A secret key in `key` is refused (401) with a message saying to send it in the `X-API-Key` header: a URL ends up in browser history and proxy logs. For a public key only published articles exist: a draft, scheduled or archived article answers exactly as an unknown slug (404, nothing stored), and so does an update of one of its page views. A public key with a list of allowed origins refuses (403) a request whose `Origin` is not on it, an absent `Origin` included; CORS headers echo allowed origins, and go on error answers for any origin so that a page can read why it was refused. The body may be sent as `application/json` or as `text/plain` holding JSON (what `navigator.sendBeacon` sends); other media types are a 415, bodies over 64 KiB a 413. JSON types are strict: `"12"` is not a number and `null` is not a boolean. A User-Agent that is a known crawler or bot, or none at all, is answered 202 `{ success: false, reason: "bot" }` and nothing is stored.';

const updateDescription = [
  '`timeOnPage` and `scrollDepth` keep the larger of the stored and the sent value, so that updates arriving out of order cannot lower them; `exitPosition` and `bounced` take the sent value; `events` are appended (a page view keeps at most 1,000: an update that would pass that is a 400 and changes nothing).',
  'An unknown id, or one of another project, is a 404; a page view created more than 24 hours ago is a 409. The answer is sent once the update is committed.',
  browserNotes,
].join('\n\n');

async function trackRoutes(track: FastifyInstance, deps: TrackingDeps): Promise<void> {
  track.setValidatorCompiler(strictValidatorCompiler);
  const parseJson = track.getDefaultJsonParser('error', 'ignore');
  track.removeContentTypeParser('text/plain');
  track.addContentTypeParser('text/plain', { parseAs: 'string' }, (request, body, done) => {
    if (String(body).trim() === '') {
      done(
        new ValidationError([{ field: 'body', message: 'The request body is empty; send a JSON object' }]),
        undefined,
      );
      return;
    }
    parseJson(request, String(body), done);
  });
  track.addContentTypeParser('*', (_request, _payload, done) => {
    done(
      new HttpError(
        415,
        'Unsupported Media Type',
        'The request body must be application/json or text/plain (JSON)',
      ),
      undefined,
    );
  });

  track.post(
    '/v1/analytics/track',
    {
      config: trackAccess,
      schema: {
        tags: ['Analytics'],
        summary: 'Track a page view',
        description: [
          "Creates a page view of one of the project's articles (404 `Article 'SLUG' not found` otherwise) and adds one to its `viewCount`. The answer is sent once the page view is committed: it survives a crash of the process.",
          "`id` and `pageViewId` are the same random value (128 random bits after a time prefix); either works in the update path. `sessionId` echoes the one sent, or is a new random one. `visitorId` is an HMAC-SHA-256 of the day's secret salt, the project, the client IP and the User-Agent; salts change every UTC day and are deleted two days later. The IP is never stored.",
          '`fetchGeo: true` stores the country of the client IP, looked up offline (DB-IP Lite, CC BY 4.0, or the file named by `GEOIP_DATABASE`); private and unknown addresses get none. A request with an `X-Folio-Client` header counts as `sdk`, any other as `direct`.',
          '`timeOnPage` is kept to the millisecond and `scrollDepth` to 0.01 percent; `sessionId` must be 1 to 128 characters.',
          browserNotes,
        ].join('\n\n'),
        consumes: bodyMediaTypes,
        querystring: KeyQuery,
        body: TrackBody,
        response: { 201: TrackCreated, 202: BotIgnored, ...errors(400, 401, 403, 404, 413, 415, 429, 503) },
      },
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      const answer = await trackPageView(deps, senderOf(request), request.body as TrackBodyType);
      return reply.code(answer.success ? 201 : 202).send(answer);
    },
  );

  const update = async (request: FastifyRequest, reply: FastifyReply) => {
    const { id } = request.params as { id: string };
    const answer = await updatePageView(deps, senderOf(request), id, request.body as UpdateBodyType);
    return reply.code('data' in answer ? 200 : 202).send(answer);
  };
  const updateSchema = {
    tags: ['Analytics'],
    consumes: bodyMediaTypes,
    querystring: KeyQuery,
    params: PageViewParams,
    body: UpdateBody,
    response: { 200: TrackUpdated, 202: BotIgnored, ...errors(400, 401, 403, 404, 409, 413, 415, 429, 503) },
  };
  track.put(
    '/v1/analytics/track/:id',
    {
      config: trackAccess,
      schema: {
        ...updateSchema,
        summary: 'Update a page view with engagement metrics',
        description: updateDescription,
      },
    },
    update,
  );
  track.post(
    '/v1/analytics/track/:id',
    {
      config: trackAccess,
      schema: {
        ...updateSchema,
        summary: 'Update a page view (for navigator.sendBeacon, which can only POST)',
        description: `Exactly the PUT of the same path.\n\n${updateDescription}`,
      },
    },
    update,
  );

  answerPreflights(track, ['/v1/analytics/track', '/v1/analytics/track/:id'], 'POST, PUT');
}
