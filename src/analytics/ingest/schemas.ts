// TypeBox schemas of the tracking endpoints: the source of their validation, serialization and
// OpenAPI description, and of the tracker's and the client's types.
import { type Static, Type } from 'typebox';

const TrackEvent = Type.Object(
  {
    type: Type.String({ minLength: 1, maxLength: 64, description: 'Free event name, e.g. `click`, `copy`' }),
    element: Type.Optional(
      Type.String({ maxLength: 512, description: 'What the event concerns, e.g. a selector' }),
    ),
    timeOffset: Type.Number({ minimum: 0, description: 'Milliseconds since the page view began' }),
  },
  { description: 'A custom event; other members are ignored and not stored' },
);

const measures = {
  timeOnPage: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: 86400,
      description:
        'Seconds on the page; kept to the millisecond. An update keeps the larger of the stored and the new value',
    }),
  ),
  scrollDepth: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: 100,
      description:
        'Deepest scroll, percent; kept to 0.01. An update keeps the larger of the stored and the new value',
    }),
  ),
  exitPosition: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: 100,
      description: 'Scroll position on leaving, percent; an update replaces it',
    }),
  ),
  bounced: Type.Optional(
    Type.Boolean({
      description:
        'Whether the visitor bounced; an update replaces it. Never sent: bounced when timeOnPage < 5',
    }),
  ),
  events: Type.Optional(
    Type.Array(TrackEvent, {
      maxItems: 100,
      description: 'Custom events, appended to those stored (at most 1,000 per page view)',
    }),
  ),
};

const Visitor = Type.Object(
  {
    ip: Type.String({
      format: 'ip',
      maxLength: 64,
      description: "The visitor's IPv4 or IPv6 address, as your server received it",
    }),
    userAgent: Type.String({
      maxLength: 1024,
      description: "The visitor's `User-Agent` header; an empty one is a bot's",
    }),
  },
  {
    description:
      "Secret keys only (a 400 with a public key): track on a visitor's behalf. The bot rule, the visitor id, the country and the rate limit then use this address and User-Agent instead of the caller's",
  },
);
export type VisitorType = Static<typeof Visitor>;

const text = (maxLength: number, description?: string) =>
  Type.Optional(Type.String({ maxLength, ...(description ? { description } : {}) }));
const pixels = (description: string) =>
  Type.Optional(Type.Integer({ minimum: 0, maximum: 100000, description }));

export const TrackBody = Type.Object(
  {
    slug: Type.String({ minLength: 1, maxLength: 1000, description: "The article's slug" }),
    sessionId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 128,
        description: 'Caller-generated id of the session; a new one when absent',
      }),
    ),
    pageUrl: text(2048),
    pageTitle: text(512),
    referrer: text(2048),
    utmSource: text(256),
    utmMedium: text(256),
    utmCampaign: text(256),
    utmTerm: text(256),
    utmContent: text(256),
    screenWidth: pixels('Pixels'),
    screenHeight: pixels('Pixels'),
    ...measures,
    visitor: Type.Optional(Visitor),
    fetchGeo: Type.Optional(
      Type.Boolean({
        description: 'Look the country up from the client IP (offline database); no country otherwise',
      }),
    ),
  },
  { description: 'Unknown members are ignored. Strings may not contain NUL characters.' },
);
export type TrackBodyType = Static<typeof TrackBody>;

export const UpdateBody = Type.Object(
  { ...measures, visitor: Type.Optional(Visitor) },
  {
    description: 'Every member is optional; unknown members are ignored.',
  },
);
export type UpdateBodyType = Static<typeof UpdateBody>;

export const KeyQuery = Type.Object({
  key: Type.Optional(
    Type.String({
      maxLength: 200,
      description: 'A public key, for `navigator.sendBeacon`, which cannot send headers',
    }),
  ),
});

export const PageViewParams = Type.Object({
  id: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'The `id` (= `pageViewId`) answered by the POST',
  }),
});
export type PageViewParamsType = Static<typeof PageViewParams>;

export const TrackCreated = Type.Object({
  success: Type.Boolean(),
  id: Type.String({ description: 'The page view id, for the update path' }),
  pageViewId: Type.String({ description: 'The same value as `id`' }),
  visitorId: Type.String({
    description: 'A salted daily hash of the client IP and User-Agent: unlinkable across days',
  }),
  sessionId: Type.String(),
});

export const BotIgnored = Type.Object(
  { success: Type.Boolean(), reason: Type.String({ enum: ['bot'] }) },
  { description: 'The User-Agent is a crawler or bot (or absent): nothing is stored' },
);

export const TrackUpdated = Type.Object({ data: Type.Object({ success: Type.Boolean() }) });
