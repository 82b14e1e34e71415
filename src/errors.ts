// The errors that features throw: each carries the HTTP status it answers with, the reason phrase
// and, for a 400, one issue per field. Nothing here knows Fastify; http/errors.ts turns them into
// the error body.

/** Seconds a client should wait before retrying a 503 caused by the database. */
export const retryAfterSeconds = 5;

export interface FieldIssue {
  field: string;
  message: string;
}

export class HttpError extends Error {
  readonly statusCode: number;
  readonly error: string;
  readonly details: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(
    statusCode: number,
    error: string,
    message: string,
    details?: Record<string, unknown>,
    headers?: Record<string, string>,
  ) {
    super(message);
    this.statusCode = statusCode;
    this.error = error;
    this.details = details;
    this.headers = headers;
  }
}

export class ValidationError extends HttpError {
  constructor(issues: FieldIssue[]) {
    super(400, 'Bad Request', issues.map((issue) => `${issue.field}: ${issue.message}`).join('; '), {
      issues,
    });
  }
}

export class NotFoundError extends HttpError {
  constructor(message: string) {
    super(404, 'Not Found', message);
  }
}

export class ConflictError extends HttpError {
  constructor(message: string) {
    super(409, 'Conflict', message);
  }
}

export class ForbiddenError extends HttpError {
  constructor(message: string, details?: Record<string, unknown>) {
    super(403, 'Forbidden', message, details);
  }
}

export class UnauthorizedError extends HttpError {
  constructor(message: string) {
    super(401, 'Unauthorized', message);
  }
}

export class ServiceUnavailableError extends HttpError {
  constructor(message = 'The database cannot be reached; try again shortly') {
    super(503, 'Service Unavailable', message, undefined, { 'Retry-After': String(retryAfterSeconds) });
  }
}
