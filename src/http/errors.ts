// The one handler that turns features' errors (src/errors.ts) and Fastify's own errors into the
// contract's error body. A 5xx never shows internals; the log has the stack and request id.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { strictQueryKeyword } from './query-parameters.ts';
import { loggableUrl } from './request-id.ts';
import { type FieldIssue, HttpError, retryAfterSeconds } from '../errors.ts';
import { databaseUnavailableMessage } from '../db/database-errors.ts';
import { forgetRoute } from './route-of.ts';

export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'The HTTP reason phrase, e.g. `Not Found`' }),
    message: Type.String(),
    statusCode: Type.Integer(),
    details: Type.Optional(
      Type.Object(
        {
          issues: Type.Optional(
            Type.Array(Type.Object({ field: Type.String(), message: Type.String() }), {
              description: 'One entry per invalid field (400 only)',
            }),
          ),
        },
        { additionalProperties: true },
      ),
    ),
  },
  { $id: 'Error', title: 'Error' },
);

/** The `response` schemas of the error statuses a route answers: each the one error body. */
export function errorSchemas<const S extends number>(...statuses: S[]): Record<S, typeof ErrorBody> {
  return Object.fromEntries(statuses.map((status) => [status, ErrorBody])) as Record<S, typeof ErrorBody>;
}

const reasonPhrases: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  408: 'Request Timeout',
  409: 'Conflict',
  412: 'Precondition Failed',
  411: 'Length Required',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  428: 'Precondition Required',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export function reasonPhrase(statusCode: number): string {
  return reasonPhrases[statusCode] ?? (statusCode >= 500 ? 'Internal Server Error' : 'Bad Request');
}

export function sendError(
  reply: FastifyReply,
  statusCode: number,
  message: string,
  details?: Record<string, unknown>,
): FastifyReply {
  const body: Record<string, unknown> = { error: reasonPhrase(statusCode), message, statusCode };
  // Every 400 lists its problems in `details.issues`, whichever path produced it.
  if (statusCode === 400 && !Array.isArray(details?.issues)) {
    details = { ...details, issues: [{ field: 'request', message }] };
  }
  if (details !== undefined) body.details = details;
  return reply.code(statusCode).type('application/json; charset=utf-8').send(JSON.stringify(body));
}

interface AjvError {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
  parentSchema?: Record<string, unknown>;
}

/** Turns Ajv's errors into one issue per field, with a message that names the allowed values. */
export function issuesFromValidation(errors: AjvError[], context: string | undefined): FieldIssue[] {
  const byField = new Map<string, string>();
  for (const error of errors) {
    if (error.keyword === strictQueryKeyword) {
      const field = String(error.params.field);
      if (!byField.has(field)) byField.set(field, error.message ?? 'is invalid');
      continue;
    }
    let field = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
    if (error.keyword === 'required') {
      const missing = String(error.params.missingProperty ?? '');
      field = field ? `${field}.${missing}` : missing;
    }
    if (error.keyword === 'additionalProperties') {
      const extra = String(error.params.additionalProperty ?? '');
      field = field ? `${field}.${extra}` : extra;
    }
    if (!field) field = context ?? 'body';
    if (!byField.has(field)) byField.set(field, describeProblem(error));
  }
  return [...byField].map(([field, message]) => ({ field, message }));
}

function describeProblem(error: AjvError): string {
  const schema = error.parentSchema ?? {};
  if (error.keyword === 'required') return 'is required';
  if (error.keyword === 'additionalProperties') return 'is not a known field';
  if (Array.isArray(schema.enum)) return `must be one of: ${schema.enum.join(', ')}`;
  if (error.keyword === 'anyOf' && Array.isArray(schema.anyOf)) {
    const values = (schema.anyOf as Array<Record<string, unknown>>).map((option) => option.const);
    if (values.every((value) => value !== undefined)) return `must be one of: ${values.join(', ')}`;
  }
  if (schema.type === 'integer' || schema.type === 'number') {
    const kind = schema.type === 'integer' ? 'an integer' : 'a number';
    const min = schema.minimum ?? schema.exclusiveMinimum;
    const max = schema.maximum ?? schema.exclusiveMaximum;
    if (min !== undefined && max !== undefined) return `must be ${kind} from ${min} to ${max}`;
    if (min !== undefined) return `must be ${kind} ≥ ${min}`;
    if (max !== undefined) return `must be ${kind} ≤ ${max}`;
    return `must be ${kind}`;
  }
  if (schema.type === 'string') {
    if (error.keyword === 'maxLength') return `must be at most ${schema.maxLength} characters`;
    if (error.keyword === 'minLength') return `must be at least ${schema.minLength} characters`;
    if (error.keyword === 'pattern') return `must match ${schema.pattern}`;
    if (error.keyword === 'format') return `must be a valid ${schema.format}`;
    return 'must be a string';
  }
  if (schema.type === 'boolean') return 'must be true or false';
  if (schema.type === 'array') {
    if (error.keyword === 'maxItems') return `must have at most ${schema.maxItems} items`;
    return 'must be an array';
  }
  if (schema.type === 'object') return 'must be an object';
  return error.message ?? 'is invalid';
}

/** Node's own error for a request whose client went away before its body was complete. */
function isClientAbort(error: unknown, request: FastifyRequest): boolean {
  return (
    (error as { code?: unknown })?.code === 'ECONNRESET' &&
    ((error as Error).message === 'aborted' || request.raw.readableAborted)
  );
}

export function registerErrorHandling(
  app: FastifyInstance,
  failures?: { record(error: unknown): void },
): void {
  app.setErrorHandler((error: FastifyError | HttpError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof HttpError) {
      if (error.headers) reply.headers(error.headers);
      return sendError(reply, error.statusCode, error.message, error.details);
    }
    const fastifyError = error as FastifyError & { validation?: AjvError[]; validationContext?: string };
    if (fastifyError.validation) {
      const issues = issuesFromValidation(fastifyError.validation, fastifyError.validationContext);
      const message = issues.map((issue) => `${issue.field}: ${issue.message}`).join('; ');
      return sendError(reply, 400, message, { issues });
    }
    // Before the database check: a hang-up mid-body is ECONNRESET too, and says nothing of the database.
    if (isClientAbort(error, request)) {
      request.log.info(
        { method: request.method, url: loggableUrl(request.url) },
        'client closed the connection before sending the whole request',
      );
      return sendError(reply, 400, 'The client closed the connection before sending the whole request');
    }
    const unavailable = databaseUnavailableMessage(error);
    if (unavailable !== null) {
      failures?.record(error);
      // Debug only: an outage is logged once when it starts and once when it ends (ops-routes.ts),
      // where a line per refused request would bury everything else.
      request.log.debug({ err: error }, 'database unavailable');
      reply.header('Retry-After', String(retryAfterSeconds));
      return sendError(reply, 503, unavailable);
    }
    const status = fastifyError.statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      const message = clientErrorMessage(fastifyError);
      // A 400 always lists its problems in `details.issues`, even when Fastify found it before
      // validation.
      const details =
        status === 400 ? { issues: [{ field: clientErrorField(fastifyError), message }] } : undefined;
      return sendError(reply, status, message, details);
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, 500, 'An unexpected error occurred; the request id identifies it in the logs');
  });

  app.setNotFoundHandler((request, reply) => {
    // A route may have handed the request over (reply.callNotFound()): the hooks after this one
    // read the not-found route.
    forgetRoute(request);
    return sendError(reply, 404, `No route ${request.method} ${request.url.split('?')[0]}`);
  });
}

function clientErrorField(error: FastifyError): string {
  return error.code?.startsWith('FST_ERR_CTP_') ? 'body' : 'request';
}

function clientErrorMessage(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'The request body is larger than 64 KiB (1 MiB for article writes)';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'The request body must be application/json';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'The request body is empty but the Content-Type is application/json';
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return `The request body is not valid JSON: ${error.message}`;
    default:
      return error.message;
  }
}
