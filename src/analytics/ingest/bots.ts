// Crawlers and bots, recognised by their User-Agent with isbot's maintained pattern list. A request
// without a User-Agent comes from a script, not a browser: it is treated as a bot too.
import { isbot } from 'isbot';

// A site's traffic comes from a few hundred distinct User-Agents: remember the verdict of recent
// ones rather than run isbot's long pattern again on each request.
const verdicts = new Map<string, boolean>();
const maxVerdicts = 2000;

export function isBotUserAgent(userAgent: string | undefined): boolean {
  if (userAgent === undefined || userAgent.trim() === '') return true;
  let bot = verdicts.get(userAgent);
  if (bot === undefined) {
    bot = isbot(userAgent);
    if (verdicts.size >= maxVerdicts) verdicts.clear();
    verdicts.set(userAgent, bot);
  }
  return bot;
}
