// Query strings are checked as they were sent, before Ajv coerces them: an unknown parameter is a
// 400 naming it, and an integer parameter takes plain decimal digits only (both rules of every
// endpoint, stated in the OpenAPI document). Ajv's `coerceTypes` turns any string `Number()`
// accepts into a number, so `Infinity`, `1e309`, `0x10`, `+1` and `1 ` all passed as integers (the
// first two as Infinity, which reached SQL as a 500).
import type { Plugin, SchemaValidateFunction } from 'ajv';
import type { FastifyInstance } from 'fastify';
import type { FieldIssue } from '../errors.ts';

/** The keyword every API route's querystring schema carries (added by registerStrictQueries). */
export const strictQueryKeyword = 'x-strict-query';

/** At most 15 digits: every value is a safe integer, and a longer one is out of every range anyway. */
const decimalInteger = /^-?[0-9]{1,15}$/;

interface QuerySchema {
  properties?: Record<string, { type?: unknown; minimum?: unknown; maximum?: unknown }>;
}

/** The problems of a query as sent: unknown names, and integers not written as plain digits. */
export function queryIssues(schema: QuerySchema, query: unknown): FieldIssue[] {
  if (query === null || typeof query !== 'object') return [];
  const properties = schema.properties ?? {};
  const known = Object.keys(properties);
  const issues: FieldIssue[] = [];
  for (const [name, value] of Object.entries(query)) {
    const property = properties[name];
    if (property === undefined || !Object.hasOwn(properties, name)) {
      issues.push({
        field: name,
        message:
          known.length === 0
            ? 'is not a known parameter: this endpoint takes no query parameters'
            : `is not a known parameter; known parameters: ${known.join(', ')}`,
      });
    } else if (property.type === 'integer' && typeof value === 'string' && !decimalInteger.test(value)) {
      issues.push({ field: name, message: `must be an integer${range(property)}` });
    }
  }
  return issues;
}

function range(schema: { minimum?: unknown; maximum?: unknown }): string {
  const { minimum, maximum } = schema;
  if (minimum !== undefined && maximum !== undefined) return ` from ${minimum} to ${maximum}`;
  if (minimum !== undefined) return ` ≥ ${minimum}`;
  if (maximum !== undefined) return ` ≤ ${maximum}`;
  return '';
}

/**
 * The Ajv plugin of the keyword. A keyword without a data type runs before the keywords of the
 * object (`properties`, where each member is coerced), so it still sees the strings as sent.
 */
export const strictQueryPlugin: Plugin<unknown> = (ajv) => {
  const validate: SchemaValidateFunction = (enabled: boolean, data: unknown, parentSchema?: unknown) => {
    if (!enabled) return true;
    const issues = queryIssues(parentSchema as QuerySchema, data);
    if (issues.length === 0) return true;
    validate.errors = issues.map((issue) => ({
      keyword: strictQueryKeyword,
      instancePath: '',
      message: issue.message,
      params: { field: issue.field },
    }));
    return false;
  };
  ajv.addKeyword({ keyword: strictQueryKeyword, schemaType: 'boolean', errors: true, validate });
  return ajv;
};

/**
 * Gives every API route (paths under /v1/) a querystring schema with the strict keyword: routes
 * without parameters get an empty one, so that `?anything` is a 400 there too. Keyless routes
 * (`access: 'none'`: the OpenAPI document, the tracker script, preflights) are left as they are:
 * a static asset must not break on a cache-busting parameter a page or CDN adds.
 */
export function registerStrictQueries(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/v1/') || route.config?.access === 'none') return;
    const schema = route.schema ?? {};
    const querystring = (schema.querystring ?? { type: 'object', properties: {} }) as Record<string, unknown>;
    route.schema = { ...schema, querystring: { ...querystring, [strictQueryKeyword]: true } };
  });
}
