// The track endpoints, in a plugin of their own, because browsers need more of them than the rest
// of the API takes: `text/plain` JSON bodies and the key as `?key=` (what navigator.sendBeacon can
// send), CORS, and strict JSON types.
import { isIP } from 'node:net';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { publishedOnly } from '../../http/auth.ts';
import { answerPreflights } from '../../http/cors.ts';
import { HttpError, ValidationError } from '../../errors.ts';
import { errorSchemas as errors } from '../../http/errors.ts';
import {
  BotIgnored,
  KeyQuery,
  PageViewParams,
  type PageViewParamsType,
  TrackBody,
  TrackCreated,
  TrackUpdated,
  UpdateBody,
  type UpdateBodyType,
} from './schemas.ts';
import { strictValidatorCompiler } from './strict-validator.ts';
import { trackDescription, updateDescription } from './descriptions.ts';
import { type Sender, type TrackingDeps, trackPageView, updatePageView } from './tracking.ts';

function senderOf(request: FastifyRequest): Sender {
  const userAgent = request.headers['user-agent'];
  return {
    project: request.auth.project,
    ip: request.ip,
    userAgent,
    fromSdk: request.headers['x-folio-client'] !== undefined,
    publishedOnly: publishedOnly(request),
    mayForward: request.auth.key.kind === 'secret',
    testKey: request.auth.key.test,
    now: new Date(),
  };
}

/**
 * The address a secret key's tracking request is counted against: the forwarded visitor's when the
 * body names a valid one (else the caller's). Read before validation, which refuses anything else.
 */
function forwardedVisitorIp(request: FastifyRequest): string | undefined {
  const body: unknown = request.body;
  if (typeof body !== 'object' || body === null || !('visitor' in body)) return undefined;
  const visitor: unknown = body.visitor;
  if (typeof visitor !== 'object' || visitor === null || !('ip' in visitor)) return undefined;
  return typeof visitor.ip === 'string' && isIP(visitor.ip) !== 0 ? visitor.ip : undefined;
}

const trackAccess = {
  access: 'public',
  keyInQuery: true,
  cors: 'track',
  rateLimitAddress: forwardedVisitorIp,
} as const;
const bodyMediaTypes = ['application/json', 'text/plain'];

export async function trackRoutes(fastify: FastifyInstance, deps: TrackingDeps): Promise<void> {
  const track = fastify.withTypeProvider<TypeBoxTypeProvider>();
  track.setValidatorCompiler(strictValidatorCompiler);
  acceptBeaconBodies(track);

  track.post(
    '/v1/analytics/track',
    {
      config: trackAccess,
      schema: {
        tags: ['Analytics'],
        summary: 'Track a page view',
        description: trackDescription,
        consumes: bodyMediaTypes,
        querystring: KeyQuery,
        body: TrackBody,
        response: { 201: TrackCreated, 202: BotIgnored, ...errors(400, 401, 403, 404, 413, 415, 429, 503) },
      },
    },
    async (request, reply) => {
      const answer = await trackPageView(deps, senderOf(request), request.body);
      return reply.code(answer.success ? 201 : 202).send(answer);
    },
  );

  // The PUT and the POST of the same path: one update, typed by their shared schema.
  const update = async (
    request: FastifyRequest,
    reply: FastifyReply,
    { id }: PageViewParamsType,
    body: UpdateBodyType,
  ) => {
    const answer = await updatePageView(deps, senderOf(request), id, body);
    return reply.code('data' in answer ? 200 : 202).send(answer);
  };
  const updateSchema = {
    tags: ['Analytics'],
    consumes: bodyMediaTypes,
    querystring: KeyQuery,
    params: PageViewParams,
    body: UpdateBody,
    response: { 200: TrackUpdated, 202: BotIgnored, ...errors(400, 401, 403, 404, 409, 413, 415, 429, 503) },
  };
  track.put(
    '/v1/analytics/track/:id',
    {
      config: trackAccess,
      schema: {
        ...updateSchema,
        summary: 'Update a page view with engagement metrics',
        description: updateDescription,
      },
    },
    (request, reply) => update(request, reply, request.params, request.body),
  );
  track.post(
    '/v1/analytics/track/:id',
    {
      config: trackAccess,
      schema: {
        ...updateSchema,
        summary: 'Update a page view (for navigator.sendBeacon, which can only POST)',
        description: `Exactly the PUT of the same path.\n\n${updateDescription}`,
      },
    },
    (request, reply) => update(request, reply, request.params, request.body),
  );

  answerPreflights(track, ['/v1/analytics/track', '/v1/analytics/track/:id'], 'POST, PUT');
}

/**
 * Bodies as browsers send them: JSON as `application/json` or as `text/plain` (what
 * navigator.sendBeacon sends); an empty text body is a 400 and any other media type a 415.
 */
function acceptBeaconBodies(track: FastifyInstance): void {
  const parseJson = track.getDefaultJsonParser('error', 'ignore');
  // These two alone, whatever media types the rest of the app parses (the write API's JSON Merge
  // Patch is no tracking body).
  track.removeAllContentTypeParsers();
  track.addContentTypeParser(
    'application/json',
    { parseAs: 'string' },
    track.getDefaultJsonParser('error', 'error'),
  );
  track.addContentTypeParser('text/plain', { parseAs: 'string' }, (request, body, done) => {
    if (String(body).trim() === '') {
      done(
        new ValidationError([{ field: 'body', message: 'The request body is empty; send a JSON object' }]),
        undefined,
      );
      return;
    }
    parseJson(request, String(body), done);
  });
  track.addContentTypeParser('*', (_request, _payload, done) => {
    done(
      new HttpError(
        415,
        'Unsupported Media Type',
        'The request body must be application/json or text/plain (JSON)',
      ),
      undefined,
    );
  });
}
