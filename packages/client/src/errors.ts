// Errors of the Folio client: every answer that is not a success becomes a typed exception carrying
// the contract's error body (`error`, `message`, `statusCode`, `details`) and the request id.

export interface FieldIssue {
  field: string;
  message: string;
}

export interface ErrorBody {
  error: string;
  message: string;
  statusCode: number;
  details?: { issues?: FieldIssue[] } & Record<string, unknown>;
}

export class FolioError extends Error {
  override readonly name: string = 'FolioError';
  /** The HTTP status, or 0 when no answer came (network error, timeout). */
  readonly status: number;
  /** The contract's `error` (e.g. `Not Found`). */
  readonly error: string;
  readonly details: ErrorBody['details'];
  /** The answer's `X-Request-Id`, to quote when reporting a problem. */
  readonly requestId: string | null;

  constructor(status: number, body: ErrorBody, requestId: string | null, options?: { cause?: unknown }) {
    super(body.message, options);
    this.status = status;
    this.error = body.error;
    this.details = body.details;
    this.requestId = requestId;
  }
}

/** 400: `issues` names each bad field. */
export class FolioValidationError extends FolioError {
  override readonly name = 'FolioValidationError';
  get issues(): FieldIssue[] {
    return this.details?.issues ?? [];
  }
}

/** 401 (missing, unknown or revoked key) and 403 (the key's kind may not call the endpoint). */
export class FolioAuthError extends FolioError {
  override readonly name = 'FolioAuthError';
}

/** 404: unknown article, tag, page view or route. */
export class FolioNotFoundError extends FolioError {
  override readonly name = 'FolioNotFoundError';
}

/** 409: a page view older than 24 hours was updated. */
export class FolioConflictError extends FolioError {
  override readonly name = 'FolioConflictError';
}

/** 429, after the client's retries: `retryAfterSeconds` says when the budget allows the next request. */
export class FolioRateLimitError extends FolioError {
  override readonly name = 'FolioRateLimitError';
  readonly retryAfterSeconds: number | null;
  constructor(status: number, body: ErrorBody, requestId: string | null, retryAfterSeconds: number | null) {
    super(status, body, requestId);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** 503 (the service or its database is unavailable, or it is shutting down), after the retries. */
export class FolioUnavailableError extends FolioError {
  override readonly name = 'FolioUnavailableError';
}

/** No answer: the network failed or the request timed out. */
export class FolioNetworkError extends FolioError {
  override readonly name = 'FolioNetworkError';
  constructor(message: string, cause: unknown) {
    super(0, { error: 'Network Error', message, statusCode: 0 }, null, { cause });
  }
}

export function errorFor(
  status: number,
  body: ErrorBody,
  requestId: string | null,
  retryAfterSeconds: number | null,
): FolioError {
  switch (status) {
    case 400:
      return new FolioValidationError(status, body, requestId);
    case 401:
    case 403:
      return new FolioAuthError(status, body, requestId);
    case 404:
      return new FolioNotFoundError(status, body, requestId);
    case 409:
      return new FolioConflictError(status, body, requestId);
    case 429:
      return new FolioRateLimitError(status, body, requestId, retryAfterSeconds);
    case 503:
      return new FolioUnavailableError(status, body, requestId);
    default:
      return new FolioError(status, body, requestId);
  }
}
