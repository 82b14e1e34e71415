// Crawlers and bots, recognised by their User-Agent with isbot's maintained pattern list. A request
// without a User-Agent comes from a script, not a browser: it is treated as a bot too. A test key's
// requests let headless browsers and browser-automation clients through (a blog's own end-to-end
// tests), while crawlers stay bots.
import { isbot } from 'isbot';

// A site's traffic comes from a few hundred distinct User-Agents: remember the verdict of recent
// ones rather than run isbot's long pattern again on each request.
const verdicts = new Map<string, boolean>();
const testKeyVerdicts = new Map<string, boolean>();
const maxVerdicts = 2000;

export function isBotUserAgent(userAgent: string | undefined): boolean {
  if (userAgent === undefined || userAgent.trim() === '') return true;
  return remembered(verdicts, userAgent, isbot);
}

/**
 * What headless automation adds to a browser's User-Agent (Chromium's `HeadlessChrome`, the
 * `Playwright/1.49.0` of Playwright's request context, PhantomJS, Selenium, Puppeteer): the
 * tokens isbot flags as automation rather than as crawling.
 */
const automationTokens =
  /\b(?:Headless(?=Chrome)|Headless\b|Playwright|Puppeteer|PhantomJS|Selenium|WebDriver)(?:\/[\w.]+)?/gi;

/**
 * The bot rule of a test key: the User-Agent is judged without its automation tokens, so that
 * headless Chromium (`HeadlessChrome/…` reads as `Chrome/…`) and a bare `Playwright/1.49.0` count,
 * while a crawler that renders with headless Chrome still names itself (`Googlebot`) and stays a
 * bot.
 */
export function isBotForTestKey(userAgent: string | undefined): boolean {
  if (userAgent === undefined || userAgent.trim() === '') return true;
  return remembered(testKeyVerdicts, userAgent, (agent) => {
    const rest = agent.replace(automationTokens, '').trim();
    if (rest === '') return false;
    return isbot(rest);
  });
}

function remembered(
  cache: Map<string, boolean>,
  userAgent: string,
  judge: (agent: string) => boolean,
): boolean {
  let bot = cache.get(userAgent);
  if (bot === undefined) {
    bot = judge(userAgent);
    if (cache.size >= maxVerdicts) cache.clear();
    cache.set(userAgent, bot);
  }
  return bot;
}
