// The webhooks feature as app.ts, server.ts and the CLI use it: its routes and the dispatcher,
// started when the app is ready and stopped when it closes.
import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/database.ts';
import type { HostLookup } from './addresses.ts';
import { type AnnounceDue, WebhookDispatcher, type WebhookSettings } from './dispatcher.ts';
import { webhookRoutes } from './routes.ts';
import { routeOf } from '../http/route-of.ts';

export { AddressPolicy, type HostLookup, type PrivateAllowance } from './addresses.ts';
export type { AnnounceDue, WebhookSettings } from './dispatcher.ts';
export { eventFilters } from './events.ts';
export {
  createWebhook,
  deleteWebhook,
  listWebhooks,
  projectOfWebhook,
  webhookDeliveries,
} from './service.ts';
export { verify as verifyWebhookSignature } from './signature.ts';

export interface WebhookOptions {
  settings: WebhookSettings;
  /** content's announceDuePublications (passed in: a feature does not import another's internals). */
  announce: AnnounceDue;
  lookup?: HostLookup;
  /** True while the instance drains: no delivery attempt starts. */
  draining?: () => boolean;
  /** False: the routes only, no dispatcher (a second app on a database whose dispatcher runs elsewhere). */
  dispatch?: boolean;
}

/** Registers the webhook routes and runs the dispatcher for the app's life; returns it (tests, benches). */
export function registerWebhooks(app: FastifyInstance, db: Db, options: WebhookOptions): WebhookDispatcher {
  const dispatcher = new WebhookDispatcher(db, {
    settings: options.settings,
    announce: options.announce,
    lookup: options.lookup,
    draining: options.draining,
    log: app.log,
  });
  webhookRoutes(app, db, dispatcher.policy);
  if (options.dispatch === false) return dispatcher;
  app.addHook('onReady', async () => dispatcher.start());
  app.addHook('onClose', async () => dispatcher.stop());
  // A write answered here has committed its events (and maybe scheduled a publication): look now
  // rather than at the next poll.
  app.addHook('onResponse', (request, reply, done) => {
    if (routeOf(request).config.scope === 'write' && reply.statusCode < 400) dispatcher.nudge();
    done();
  });
  return dispatcher;
}

export type { WebhookDispatcher };
