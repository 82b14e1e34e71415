// Crawlers and bots, recognised by their User-Agent with isbot's maintained pattern list. A request
// without a User-Agent comes from a script, not a browser: it is treated as a bot too.
import { isbot } from 'isbot';

export function isBotUserAgent(userAgent: string | undefined): boolean {
  if (userAgent === undefined || userAgent.trim() === '') return true;
  return isbot(userAgent);
}
