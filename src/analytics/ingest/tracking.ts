// Tracking a page view and updating it: bots are answered and ignored, the visitor id is a salted
// daily hash, the country comes from the offline database, and the write is answered only once the
// group commit that carries it is committed.
import { keyOfPageViewId } from '../../db/page-view-rows.ts';
import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/database.ts';
import type { PageViewTable, Project } from '../../db/schema.ts';
import { NotFoundError, ValidationError } from '../../errors.ts';
import { isPageViewOfPublishedArticle, isPublishedArticle } from './queries/published-article.ts';
import { isBotForTestKey, isBotUserAgent } from './bots.ts';
import type { CountryLookup } from './geo.ts';
import { toCentiPercent, toMilliseconds } from '../measures.ts';
import type { PageViewPatch, PageViewWriter, TrackEvent } from './page-view-writer.ts';
import type { DailySalts } from './salts.ts';
import type { TrackBodyType, UpdateBodyType, VisitorType } from './schemas.ts';
import { newPageViewId, visitorIdFor } from './visitor.ts';

export interface TrackingDeps {
  db: Db;
  writer: PageViewWriter;
  salts: DailySalts;
  geo: CountryLookup;
}

/** Who sends a tracking request. The IP is used for the visitor hash and the country, never kept. */
export interface Sender {
  project: Project;
  ip: string;
  userAgent: string | undefined;
  /** The request carries `X-Folio-Client` (the SDK sends it). */
  fromSdk: boolean;
  /**
   * A public key's request: only published articles exist for it, so that the slugs of drafts,
   * scheduled and archived articles (a public key is readable in any page's source) cannot be
   * guessed from the answers, and such articles collect no views.
   */
  publishedOnly: boolean;
  /**
   * The key may track on a visitor's behalf (`visitor` in the body): a secret key. A public key may
   * not, or any page could make up other visitors' addresses.
   */
  mayForward: boolean;
  /**
   * A test key's request: headless browsers count (a blog's own end-to-end tests), and the page
   * views it creates are stored marked `test`, counted nowhere unless a report asks for them.
   */
  testKey: boolean;
  now: Date;
}

function isBot(sender: Sender): boolean {
  return sender.testKey ? isBotForTestKey(sender.userAgent) : isBotUserAgent(sender.userAgent);
}

/**
 * The sender as tracking sees it: the visitor a server forwards (server-side rendering, edge
 * functions), whose address and User-Agent then count instead of the server's, or else the caller.
 */
function onBehalfOf(sender: Sender, visitor: VisitorType | undefined): Sender {
  if (visitor === undefined) return sender;
  if (!sender.mayForward) {
    throw new ValidationError([
      { field: 'visitor', message: 'is accepted only with a secret key: a public key tracks its caller' },
    ]);
  }
  return { ...sender, ip: visitor.ip, userAgent: visitor.userAgent };
}

export interface BotAnswer {
  success: false;
  reason: 'bot';
}

export interface TrackAnswer {
  success: true;
  id: string;
  pageViewId: string;
  visitorId: string;
  sessionId: string;
}

const botAnswer: BotAnswer = { success: false, reason: 'bot' };

export async function trackPageView(
  deps: TrackingDeps,
  caller: Sender,
  body: TrackBodyType,
): Promise<TrackAnswer | BotAnswer> {
  const sender = onBehalfOf(caller, body.visitor);
  if (isBot(sender)) return botAnswer;
  const { project, now } = sender;
  const at = now.toISOString();
  const id = newPageViewId(now.getTime());
  // The same error the writer gives an unknown slug, from the same place in the request.
  if (sender.publishedOnly && !(await isPublishedArticle(deps.db, project, body.slug, at, id))) {
    throw new NotFoundError(`Article '${body.slug}' not found`);
  }
  const day = at.slice(0, 10);
  const visitorId = visitorIdFor(await deps.salts.saltOf(day), project.id, sender.ip, sender.userAgent ?? '');
  const events = eventsOf(body.events);
  const row: PageViewTable = {
    id,
    project_id: project.id,
    article_id: '', // found by the batch that writes the page view
    day,
    test: sender.testKey ? 1 : 0,
    created_at: at,
    updated_at: at,
    visitor_id: visitorId,
    session_id: body.sessionId ?? randomUUID(),
    source: sender.fromSdk ? 'sdk' : 'direct',
    country: body.fetchGeo === true ? deps.geo.country(sender.ip) : null,
    time_on_page_ms: toMilliseconds(body.timeOnPage ?? 0),
    scroll_depth_centi: toCentiPercent(body.scrollDepth ?? 0),
    exit_position: body.exitPosition ?? null,
    bounced: body.bounced === undefined ? null : body.bounced ? 1 : 0,
    screen_width: body.screenWidth ?? null,
    screen_height: body.screenHeight ?? null,
    event_count: events.length,
    page_url: body.pageUrl ?? null,
    page_title: body.pageTitle ?? null,
    referrer: body.referrer ?? null,
    utm_source: body.utmSource ?? null,
    utm_medium: body.utmMedium ?? null,
    utm_campaign: body.utmCampaign ?? null,
    utm_term: body.utmTerm ?? null,
    utm_content: body.utmContent ?? null,
    events: JSON.stringify(events),
  };
  await deps.writer.write({ kind: 'create', row, slug: body.slug });
  return { success: true, id: row.id, pageViewId: row.id, visitorId, sessionId: row.session_id };
}

export async function updatePageView(
  deps: TrackingDeps,
  caller: Sender,
  id: string,
  body: UpdateBodyType,
): Promise<{ data: { success: true } } | BotAnswer> {
  const sender = onBehalfOf(caller, body.visitor);
  if (isBot(sender)) return botAnswer;
  // An id that cannot have been issued (its time, or its random part, not as issued) is unknown like
  // any other; the database is not asked.
  if (keyOfPageViewId(id) === null) throw new NotFoundError(`Page view '${id.slice(0, 100)}' not found`);
  const now = sender.now.toISOString();
  if (sender.publishedOnly && !(await isPageViewOfPublishedArticle(deps.db, sender.project, id, now))) {
    throw new NotFoundError(`Page view '${id}' not found`);
  }
  const patch: PageViewPatch = {
    timeOnPageMs: body.timeOnPage === undefined ? undefined : toMilliseconds(body.timeOnPage),
    scrollDepthCenti: body.scrollDepth === undefined ? undefined : toCentiPercent(body.scrollDepth),
    exitPosition: body.exitPosition,
    bounced: body.bounced,
    events: eventsOf(body.events),
  };
  await deps.writer.write({
    kind: 'update',
    projectId: sender.project.id,
    id,
    patch,
    now,
  });
  return { data: { success: true } };
}

/** The events as stored: only their known members, in a fixed order. */
function eventsOf(events: TrackEvent[] | undefined): TrackEvent[] {
  return (events ?? []).map((event) =>
    event.element === undefined
      ? { type: event.type, timeOffset: event.timeOffset }
      : { type: event.type, element: event.element, timeOffset: event.timeOffset },
  );
}
