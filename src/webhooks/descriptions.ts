// OpenAPI prose of the webhook endpoints: what the contract and the design decide for them.
import { eventTypes } from './events.ts';

const scopeRule = 'Needs a secret key with the `write` scope (403 naming it otherwise).';

export const createDescription = `Registers an endpoint that receives the project's events. ${scopeRule} Answers 201 with the webhook and its \`secret\` (\`whsec_\` and the base64 of a 32-byte key), shown only in this answer.

**Events.** ${eventTypes.map((type) => `\`${type}\``).join(', ')}; \`events\` may name types or the families \`article.*\` and \`tag.*\`; absent or empty, every event is sent. An unknown type is a 400 naming the item (\`events.0\`).

**Delivery.** Each event is a POST with the JSON body \`{ "type", "timestamp", "data" }\` (\`timestamp\`: when the change happened; \`data\`: the article's \`id\`, \`slug\`, \`title\`, \`publishedAt\` and \`version\` for article events, the tag for tag events, the import's summary for \`import.completed\`). Events are written in the transaction of the change they report (none is lost by a crash, none sent for a change rolled back) and sent in the background, never on the path of the request that made the change: a slow or dead receiver slows nothing. A scheduled article's \`article.published\` is sent when its time comes, once, whichever instance notices first. Order between events is not guaranteed.

**Signing** (the Standard Webhooks scheme). Headers \`webhook-id\` (the event id, the same on every retry: dedupe on it), \`webhook-timestamp\` (Unix seconds of the attempt) and \`webhook-signature: v1,<base64 of HMAC-SHA256 of "id.timestamp.body" under the base64-decoded secret>\`. Verify it against the raw body, and refuse timestamps more than 5 minutes away from your clock.

**Answers and retries.** A 2xx answer within the timeout (WEBHOOK_TIMEOUT_MS, 10 s by default) delivers; anything else (another status, a refused connection, a timeout; redirects are not followed) is retried after about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 14 h (each spread by up to a fifth, 31.5 hours in all), then the delivery is marked \`failed\`. Delivery is at least once: an attempt cut by a server's crash is made again.

**Targets.** \`url\` must be http:// or https:// without credentials. Its host is resolved when the webhook is created and again before every attempt, whose connection goes to the address checked; a host resolving to a loopback, private, link-local, unique-local, carrier-grade NAT, multicast, reserved or unspecified address (IPv4 or IPv6, IPv4-mapped included) is refused (a 400 naming \`url\` here, a failed attempt later) unless the server's WEBHOOK_ALLOW_PRIVATE allows it. A project has at most 50 webhooks (409 past that).`;

export const listDescription = `The project's webhooks, oldest first, without their secrets. ${scopeRule}`;

export const deleteDescription = `Deletes the webhook and its delivery log; its pending deliveries are not sent. 204; 404 \`Webhook not found\` for an unknown id (or another project's). ${scopeRule}`;

export const deliveriesDescription = `The webhook's delivery log, newest first: one entry per event sent to it, with its status (\`pending\`, \`delivered\`, \`failed\`), the attempts made, the last attempt's status code, error and duration, and when a pending one is tried next. \`page\` and \`limit\` (1 to 100, default 20) page it. Entries finished more than 30 days ago are removed. ${scopeRule}`;
