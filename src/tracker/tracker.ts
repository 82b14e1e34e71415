// The browser tracker served at GET /v1/analytics/script.js (minified by src/tracker/script.ts):
//   <script defer src="https://api.example.com/v1/analytics/script.js" data-key="folio_pk_…"></script>
// One page view per page (and per SPA navigation), then its visible time, deepest scroll and
// custom events, sent by navigator.sendBeacon when the page is hidden or left. It must stay small
// (< 2 KB gzipped, test/tracker/script.test.ts) and never throw into the host page.
import type { TrackBodyType, UpdateBodyType } from '../analytics/public-schemas.ts';

type PageEvent = NonNullable<UpdateBodyType['events']>[number];

interface PageView {
  path: string;
  /** The page view id, once the POST is answered; null when this page is not tracked. */
  id?: string | null;
  began: number;
  /** Visible milliseconds counted so far, and since when it is visible (null: hidden or ended). */
  visibleMs: number;
  shownAt: number | null;
  depth: number;
  exit?: number;
  events: PageEvent[];
  eventCount: number;
  lastSent?: string;
}

declare global {
  interface Window {
    folio: { track(type: string, element?: string): void };
  }
}

(() => {
  const script = document.currentScript as HTMLScriptElement | null;
  const key = script && script.getAttribute('data-key');
  if (!key) return;
  const endpoint = new URL('track', script.src).href;
  const url = (path: string) => `${endpoint}${path}?key=${encodeURIComponent(key)}`;
  const loadedPath = location.pathname;
  const geo = script.getAttribute('data-geo') !== 'false';
  const now = () => performance.now();
  const round = (value: number, scale: number) => Math.round(value * scale) / scale;
  let stopped = false;
  let view: PageView | undefined;
  let previousUrl = document.referrer;

  // One session id per tab: sessionStorage lives as long as the tab (and may be unavailable).
  let sessionId = Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) =>
    byte.toString(16).padStart(2, '0'),
  ).join('');
  try {
    sessionId =
      sessionStorage.getItem('folio_sid') || (sessionStorage.setItem('folio_sid', sessionId), sessionId);
  } catch {
    // Storage refused (privacy settings, sandboxed frame): one session per page load then.
  }

  /** How far down the bottom of the viewport is, in percent; a page that fits the viewport is 100. */
  const position = () => {
    const height = document.documentElement.scrollHeight;
    return height <= innerHeight ? 100 : Math.min(100, round(((scrollY + innerHeight) / height) * 100, 100));
  };

  /**
   * Where the current view's reader is. Only while its page is surely the one shown: on scroll, when
   * hidden, on folio.track, and a second after it starts (once a router has rendered and scrolled);
   * not on SPA navigation, when the document may already hold the next page.
   */
  const record = (page?: PageView) => {
    if (page && page === view) page.depth = Math.max(page.depth, (page.exit = position()));
  };

  /** Adds the visible time so far; `end` stops the view's clock for good. */
  const clock = (page: PageView, end?: boolean) => {
    if (page.shownAt !== null) page.visibleMs += now() - page.shownAt;
    page.shownAt = !end && document.visibilityState === 'visible' ? now() : null;
  };

  /** Sends what the page view gained since the last update; waits for the id when it is unknown. */
  const update = (page: PageView) => {
    if (stopped || !page.id) return;
    const body: UpdateBodyType = {
      timeOnPage: Math.min(86400, round(page.visibleMs / 1000, 1000)),
      scrollDepth: page.depth,
      exitPosition: page.exit,
    };
    if (page.events.length) body.events = page.events.splice(0, 100);
    const text = JSON.stringify(body);
    if (text === page.lastSent) return;
    page.lastSent = text;
    navigator.sendBeacon(url(`/${encodeURIComponent(page.id)}`), text);
    if (page.events.length) update(page);
  };

  const leave = () => {
    if (view) {
      clock(view, true);
      update(view);
    }
  };

  const start = () => {
    leave();
    if (stopped) return;
    const path = location.pathname;
    const segment = path.split('/').filter(Boolean).pop() || '';
    // data-slug names the article of the page that loaded the script; elsewhere (after SPA
    // navigation) the slug is the last segment of the path, decoded, without .html.
    let slug = path === loadedPath ? script.getAttribute('data-slug') : null;
    if (!slug) {
      try {
        slug = decodeURIComponent(segment);
      } catch {
        slug = segment;
      }
      slug = slug.replace(/\.html?$/, '');
    }
    const page: PageView = (view = {
      path,
      began: now(),
      visibleMs: 0,
      shownAt: document.visibilityState === 'visible' ? now() : null,
      depth: 0,
      events: [],
      eventCount: 0,
    });
    setTimeout(() => record(page), 1000);
    const referrer = previousUrl;
    previousUrl = location.href;
    const query = new URLSearchParams(location.search);
    // A draft preview (`?preview=TOKEN`) is read by the writer's reviewer, not a reader: no view.
    if (!slug || query.has('preview')) {
      page.id = null;
      return;
    }
    const body: TrackBodyType & Record<string, unknown> = {
      slug: slug.slice(0, 1000),
      sessionId,
      pageUrl: location.href.slice(0, 2048),
      pageTitle: document.title.slice(0, 512) || undefined,
      referrer: referrer.slice(0, 2048) || undefined,
      screenWidth: screen.width,
      screenHeight: screen.height,
      fetchGeo: geo,
    };
    for (const name of ['Source', 'Medium', 'Campaign', 'Term', 'Content']) {
      body[`utm${name}`] = query.get(`utm_${name.toLowerCase()}`)?.slice(0, 256) || undefined;
    }
    // A text/plain body is a "simple" request: no CORS preflight before it.
    fetch(url(''), { method: 'POST', body: JSON.stringify(body), keepalive: true })
      .then((answer) => {
        // 201: tracked. 404: this page is not an article; later navigations may be. 202 (a bot)
        // and every other error: nothing more is sent from this page.
        if (answer.status === 201) return answer.json();
        if (answer.status !== 404) stopped = true;
      })
      .then((created?: { id: string }) => {
        page.id = created ? created.id : null;
        // The page may have been hidden, left or given events before the id came back.
        if (page.lastSent === undefined && (page !== view || page.events.length || page.visibleMs))
          update(page);
      })
      .catch(() => {
        stopped = true;
      });
  };

  const navigated = () => {
    if (!view || location.pathname !== view.path) start();
  };
  for (const name of ['pushState', 'replaceState'] as const) {
    const original = history[name];
    history[name] = function (this: History, ...args: Parameters<History['pushState']>) {
      original.apply(this, args);
      navigated();
    };
  }
  addEventListener('popstate', navigated);
  addEventListener('scroll', () => record(view), { passive: true });
  const hidden = () => {
    if (view) {
      record(view);
      clock(view);
      update(view);
    }
  };
  document.addEventListener('visibilitychange', () =>
    document.visibilityState === 'visible' ? view && view.shownAt === null && clock(view) : hidden(),
  );
  addEventListener('pagehide', hidden);
  // Back to a page kept in the back/forward cache: a new page view, as Plausible counts it.
  addEventListener('pageshow', (event) => event.persisted && start());

  window.folio = {
    track(type, element) {
      const page = view;
      if (!page || page.id === null || typeof type !== 'string' || !type || page.eventCount >= 1000) return;
      page.eventCount++;
      page.events.push({
        type: type.slice(0, 64),
        element: typeof element === 'string' ? element.slice(0, 512) : undefined,
        timeOffset: Math.round(now() - page.began),
      });
      record(page);
      clock(page);
      update(page);
    },
  };
  start();
})();
