// The dashboard: sign in with a secret key (kept in this tab's sessionStorage only), pick a period,
// and read the project's views and visitors, top articles with their funnel and drop-off curve,
// sources, countries, devices and the realtime count. Every control is a real button, link or form
// field, so the page works with a keyboard alone; panels reflow to one column on a phone.
import './style.css';
import { FolioAuthError, FolioError } from '../../../packages/client/src/index.ts';
import { type ArticleInsights, type Breakdown, type Overview, connect, type DashboardApi } from './api.ts';
import { dropOffChart, timeSeriesChart } from './charts.ts';
import { format, h } from './dom.ts';

const keyStorage = 'folio.dashboard.key';
const periods = [
  { days: 1, label: 'Today' },
  { days: 2, label: '48 hours' },
  { days: 7, label: '7 days' },
  { days: 30, label: '30 days' },
  { days: 90, label: '90 days' },
  { days: 365, label: '12 months' },
];

const root = document.getElementById('app')!;
let realtimeTimer: number | undefined;

function start(): void {
  const key = sessionStorage.getItem(keyStorage);
  if (key) void open(connect(location.origin, key), 30);
  else signIn();
}

function signIn(problem?: string): void {
  window.clearInterval(realtimeTimer);
  const input = h('input', {
    id: 'key',
    name: 'key',
    type: 'password',
    autocomplete: 'off',
    spellcheck: 'false',
    required: true,
    placeholder: 'folio_sk_…',
    'aria-describedby': 'key-help',
  });
  const form = h(
    'form',
    { class: 'sign-in', onsubmit: (event: Event) => submit(event) },
    h('h1', {}, 'Folio'),
    h('label', { for: 'key' }, 'Secret API key'),
    input,
    h(
      'p',
      { id: 'key-help', class: 'help' },
      'Kept in this tab only (session storage) and sent to this server only. Create one with ',
      h('code', {}, 'npx folio keys create'),
      '.',
    ),
    problem ? h('p', { class: 'problem', role: 'alert' }, problem) : null,
    h('button', { type: 'submit' }, 'Sign in'),
  );
  async function submit(event: Event) {
    event.preventDefault();
    const key = input.value.trim();
    sessionStorage.setItem(keyStorage, key);
    await open(connect(location.origin, key), 30);
  }
  root.replaceChildren(h('main', { id: 'main' }, form));
  input.focus();
}

function signOut(): void {
  sessionStorage.removeItem(keyStorage);
  signIn();
}

async function open(api: DashboardApi, days: number): Promise<void> {
  root.setAttribute('aria-busy', 'true');
  try {
    const [project, overview] = await Promise.all([api.project(), api.overview(days)]);
    render(api, project.project.name, days, overview);
    refreshRealtime(api);
  } catch (error) {
    if (error instanceof FolioAuthError) {
      sessionStorage.removeItem(keyStorage);
      signIn(
        error.status === 403
          ? `This key cannot open the dashboard, which needs a secret key (folio_sk_…) with the read and analytics scopes. ${error.message}`
          : 'This key is not valid (unknown or revoked).',
      );
    } else {
      root.replaceChildren(
        h(
          'main',
          { id: 'main', class: 'failure' },
          h('p', { role: 'alert' }, messageOf(error)),
          h('button', { type: 'button', onclick: () => open(api, days) }, 'Try again'),
        ),
      );
    }
  } finally {
    root.removeAttribute('aria-busy');
  }
}

function render(api: DashboardApi, projectName: string, days: number, overview: Overview): void {
  const chart = h('div', {
    class: 'chart',
    role: 'img',
    'aria-label': `Views and visitors, ${describe(days)}`,
  });
  const detail = h('section', { class: 'panel article-detail', 'aria-live': 'polite', id: 'article-detail' });

  root.replaceChildren(
    topBar(projectName),
    h(
      'main',
      { id: 'main' },
      periodPicker(api, days),
      summaryCards(overview),
      h('section', { class: 'panel wide' }, h('h2', {}, 'Views and visitors'), chart),
      h(
        'section',
        { class: 'panel wide' },
        h('h2', {}, 'Top articles'),
        overview.topArticles.length === 0
          ? h('p', { class: 'empty' }, 'No page views in this period yet.')
          : topArticlesTable(overview.topArticles, (article) =>
              showArticle(api, article.slug, article.title, days, detail),
            ),
      ),
      detail,
      breakdownPanel('Sources', overview.sources, 'Source'),
      breakdownPanel('Countries', overview.countries, 'Country', countryNote()),
      breakdownPanel('Devices', overview.devices, 'Device'),
    ),
  );
  detail.hidden = true;
  timeSeriesChart(chart, overview.series);
}

function topBar(projectName: string): HTMLElement {
  return h(
    'header',
    { class: 'top' },
    h(
      'div',
      { class: 'brand' },
      h('span', { class: 'logo', 'aria-hidden': 'true' }, 'F'),
      h('span', {}, projectName),
    ),
    h('p', { class: 'realtime', id: 'realtime' }, '…'),
    h('button', { type: 'button', class: 'quiet', onclick: signOut }, 'Sign out'),
  );
}

function periodPicker(api: DashboardApi, days: number): HTMLElement {
  return h(
    'div',
    { class: 'periods', role: 'group', 'aria-label': 'Period' },
    periods.map((period) =>
      h(
        'button',
        {
          type: 'button',
          'aria-pressed': period.days === days ? 'true' : 'false',
          onclick: () => open(api, period.days),
        },
        period.label,
      ),
    ),
  );
}

function summaryCards({ summary, engagement }: Overview): HTMLElement {
  return h(
    'section',
    { class: 'cards', 'aria-label': 'Summary' },
    card('Views', format.count(summary.views)),
    card('Visitors', format.count(summary.visitors)),
    card('Views per visitor', format.decimal(summary.viewsPerVisitor)),
    card('Time on page', format.seconds(engagement.avgTimeOnPage)),
    card('Scroll depth', format.percent(engagement.avgScrollDepth)),
    card('Bounce rate', format.percent(engagement.bounceRate)),
  );
}

type TopArticle = Overview['topArticles'][number];

function topArticlesTable(articles: TopArticle[], show: (article: TopArticle) => void): HTMLElement {
  const head = h(
    'thead',
    {},
    h('tr', {}, h('th', { scope: 'col' }, 'Article'), h('th', { scope: 'col', class: 'number' }, 'Views')),
  );
  const rows = articles.map((article) =>
    h(
      'tr',
      {},
      h(
        'td',
        {},
        h(
          'button',
          { type: 'button', class: 'link', 'aria-controls': 'article-detail', onclick: () => show(article) },
          article.title,
        ),
      ),
      h('td', { class: 'number' }, format.count(article.views)),
    ),
  );
  return h('table', { class: 'top-articles' }, head, h('tbody', {}, rows));
}

async function showArticle(api: DashboardApi, slug: string, title: string, days: number, panel: HTMLElement) {
  panel.hidden = false;
  panel.replaceChildren(h('h2', {}, title), h('p', { class: 'loading' }, 'Loading…'));
  let insights: ArticleInsights;
  try {
    insights = await api.article(slug, days);
  } catch (error) {
    panel.replaceChildren(h('h2', {}, title), h('p', { role: 'alert' }, messageOf(error)));
    return;
  }
  const curve = h('div', {
    class: 'chart',
    role: 'img',
    'aria-label': `Share of readers still reading along ${title}`,
  });
  const { funnel, reading } = insights;
  panel.replaceChildren(
    h('h2', { tabindex: '-1' }, title),
    h(
      'div',
      { class: 'split' },
      h(
        'div',
        {},
        h('h3', {}, 'Scroll funnel'),
        h(
          'ul',
          { class: 'bars' },
          funnel.map((step) =>
            bar(
              `Reached ${step.depth}%`,
              step.percent,
              `${format.percent(step.percent)} (${format.count(step.views)})`,
            ),
          ),
        ),
        h('h3', {}, 'Reading time'),
        h(
          'dl',
          { class: 'facts' },
          h('dt', {}, 'Median time on page'),
          h('dd', {}, reading.medianSeconds === null ? '—' : format.seconds(reading.medianSeconds)),
          h('dt', {}, 'Estimated reading time'),
          h('dd', {}, format.seconds(reading.estimatedSeconds)),
          h('dt', {}, 'Read ratio'),
          h('dd', {}, format.percent(reading.readRatio)),
        ),
      ),
      h('div', {}, h('h3', {}, 'Drop-off'), curve),
    ),
  );
  dropOffChart(curve, insights.dropOff.positions, insights.dropOff.shares);
  (panel.querySelector('h2') as HTMLElement).focus();
}

function breakdownPanel(title: string, rows: Breakdown[], label: string, note?: Node): HTMLElement {
  const most = Math.max(1, ...rows.map((row) => row.views));
  return h(
    'section',
    { class: 'panel' },
    h('h2', {}, title),
    rows.length === 0
      ? h('p', { class: 'empty' }, 'Nothing in this period.')
      : h(
          'ul',
          { class: 'bars', 'aria-label': `${title}: ${label.toLowerCase()}, views and visitors` },
          rows
            .slice(0, 10)
            .map((row) =>
              bar(
                row.name,
                (row.views / most) * 100,
                `${plural(row.views, 'view')} · ${plural(row.visitors, 'visitor')}`,
              ),
            ),
        ),
    note ?? null,
  );
}

function bar(name: string, percent: number, value: string): HTMLElement {
  const fill = h('span', { class: 'fill' });
  fill.style.width = `${Math.max(0, Math.min(100, percent))}%`;
  return h('li', {}, fill, h('span', { class: 'name' }, name), h('span', { class: 'value' }, value));
}

function plural(count: number, noun: string): string {
  return `${format.count(count)} ${noun}${count === 1 ? '' : 's'}`;
}

function card(label: string, value: string): HTMLElement {
  return h('div', { class: 'card' }, h('p', { class: 'label' }, label), h('p', { class: 'value' }, value));
}

function countryNote(): HTMLElement {
  // DB-IP's licence (CC BY 4.0) asks for this link next to what its data shows.
  return h(
    'p',
    { class: 'note' },
    h('a', { href: 'https://db-ip.com', rel: 'noopener' }, 'IP Geolocation by DB-IP'),
  );
}

function refreshRealtime(api: DashboardApi): void {
  window.clearInterval(realtimeTimer);
  const update = async () => {
    const target = document.getElementById('realtime');
    if (!target) return;
    try {
      const visitors = await api.realtime();
      target.textContent = `${format.count(visitors)} ${visitors === 1 ? 'visitor' : 'visitors'} in the last 5 minutes`;
    } catch {
      target.textContent = '';
    }
  };
  void update();
  realtimeTimer = window.setInterval(update, 30_000);
}

function describe(days: number): string {
  return periods.find((period) => period.days === days)?.label ?? `${days} days`;
}

function messageOf(error: unknown): string {
  return error instanceof FolioError
    ? `${error.message} (request ${error.requestId ?? 'without id'})`
    : String(error);
}

start();
