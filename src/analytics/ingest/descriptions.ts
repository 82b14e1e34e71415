// The OpenAPI descriptions of the tracking endpoints, apart from their routes.

const browserNotes =
  'Secret and public keys, in `X-API-Key` or `Authorization: Bearer`; a public key also in the `key` query parameter. A secret key in `key` is refused (401) with a message saying to send it in the `X-API-Key` header: a URL ends up in browser history and proxy logs. For a public key only published articles exist: a draft, scheduled or archived article answers exactly as an unknown slug (404, nothing stored), and so does an update of one of its page views. A public key with a list of allowed origins refuses (403) a request whose `Origin` is not on it, an absent `Origin` included; CORS headers echo allowed origins, and go on error answers for any origin so that a page can read why it was refused. The body may be sent as `application/json` or as `text/plain` holding JSON (what `navigator.sendBeacon` sends); other media types are a 415, bodies over 64 KiB a 413. JSON types are strict: `"12"` is not a number and `null` is not a boolean. A User-Agent that is a known crawler or bot, or none at all, is answered 202 `{ success: false, reason: "bot" }` and nothing is stored.';

const testKeyNotes =
  "**Test keys** (`folio keys create --test`, public or secret), for a blog's own end-to-end tests: headless browsers count (Chromium's `HeadlessChrome`, Playwright's and Puppeteer's User-Agents, and what isbot flags as headless automation), while crawlers stay bots (a `Googlebot` User-Agent is a bot with any key). Their page views are stored marked as test views (their updates too, whatever key sends them) and count nowhere: not in the article's `viewCount`, the statistics, the funnel or the insights, unless a report is asked with `includeTest=true`. A normal key's rules are unchanged.";

const onBehalfNotes =
  "**On a visitor's behalf** (server-side rendering, edge functions): a secret key may send `visitor: { ip, userAgent }`, the visitor's address and `User-Agent` as the server received them. The bot rule, the visitor id, the country of `fetchGeo` and the rate limit then use those instead of the caller's, so the visitor id is the one the visitor's own browser would get. A public key sending `visitor` is a 400 (a page must not pass for other visitors). Rate limit: a secret key's request here is counted per key and visitor address (the caller's when `visitor` is absent), once its body is read, so a server forwarding many visitors spends one budget per visitor, not one for all; a body that cannot be read (400, 413, 415) is not counted. Public keys are counted per key and caller address on arrival, as everywhere.";

/** POST /v1/analytics/track. */
export const trackDescription = [
  "Creates a page view of one of the project's articles (404 `Article 'SLUG' not found` otherwise) and adds one to its `viewCount` (unless the key is a test key, below). The answer is sent once the page view is committed: it survives a crash of the process.",
  "`id` and `pageViewId` are the same random value (128 random bits after a time prefix); either works in the update path. `sessionId` echoes the one sent, or is a new random one. `visitorId` is an HMAC-SHA-256 of the day's secret salt, the project, the client IP and the User-Agent; salts change every UTC day and are deleted two days later. The IP is never stored.",
  '`fetchGeo: true` stores the country of the client IP, looked up offline (DB-IP Lite, CC BY 4.0, or the file named by `GEOIP_DATABASE`); private and unknown addresses get none. A request with an `X-Folio-Client` header counts as `sdk`, any other as `direct`.',
  '`timeOnPage` is kept to the millisecond and `scrollDepth` to 0.01 percent; `sessionId` must be 1 to 128 characters.',
  onBehalfNotes,
  browserNotes,
  testKeyNotes,
].join('\n\n');

/** PUT (and POST) /v1/analytics/track/:id. */
export const updateDescription = [
  '`timeOnPage` and `scrollDepth` keep the larger of the stored and the sent value, so that updates arriving out of order cannot lower them; `exitPosition` and `bounced` take the sent value; `events` are appended (a page view keeps at most 1,000: an update that would pass that is a 400 and changes nothing).',
  'An unknown id, or one of another project, is a 404; a page view created more than 24 hours ago is a 409. The answer is sent once the update is committed.',
  onBehalfNotes,
  browserNotes,
  testKeyNotes,
].join('\n\n');
