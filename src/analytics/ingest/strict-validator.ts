// A validator for the track endpoints that takes JSON types as they are: the app's Ajv coerces
// (for query strings), which would read `"timeOnPage": "12"` as 12, `"bounced": null` as false and a
// lone event object as a list of one. It checks the small part of JSON Schema these schemas use,
// reports every bad field the way the rest of the API does, and refuses NUL characters, which
// PostgreSQL cannot store.
import { isIP } from 'node:net';
import type { FastifySchemaCompiler } from 'fastify';
import { type FieldIssue, ValidationError } from '../../errors.ts';
import { queryIssues } from '../../http/query-parameters.ts';

interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  enum?: unknown[];
  /** `ip`: an IPv4 or IPv6 address. */
  format?: string;
}

export function validate(schema: Schema, value: unknown, field: string, issues: FieldIssue[]): void {
  const name = field || 'body';
  switch (schema.type) {
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        issues.push({ field: name, message: 'must be an object' });
        return;
      }
      const record = value as Record<string, unknown>;
      for (const required of schema.required ?? []) {
        if (record[required] === undefined)
          issues.push({ field: join(field, required), message: 'is required' });
      }
      for (const [key, member] of Object.entries(schema.properties ?? {})) {
        if (record[key] !== undefined) validate(member, record[key], join(field, key), issues);
      }
      return;
    }
    case 'string': {
      if (typeof value !== 'string') {
        issues.push({ field: name, message: 'must be a string' });
        return;
      }
      const length = codePoints(value, schema.maxLength);
      if (schema.minLength !== undefined && length < schema.minLength) {
        issues.push({ field: name, message: `must be at least ${schema.minLength} characters` });
      } else if (schema.maxLength !== undefined && length > schema.maxLength) {
        issues.push({ field: name, message: `must be at most ${schema.maxLength} characters` });
      } else if (value.includes('\u0000')) {
        issues.push({ field: name, message: 'must not contain NUL characters' });
      } else if (schema.enum && !schema.enum.includes(value)) {
        issues.push({ field: name, message: `must be one of: ${schema.enum.join(', ')}` });
      } else if (schema.format === 'ip' && isIP(value) === 0) {
        issues.push({ field: name, message: 'must be an IPv4 or IPv6 address' });
      }
      return;
    }
    case 'number':
    case 'integer': {
      const kind = schema.type === 'integer' ? 'an integer' : 'a number';
      const ok =
        typeof value === 'number' &&
        Number.isFinite(value) &&
        (schema.type === 'number' || Number.isInteger(value)) &&
        (schema.minimum === undefined || value >= schema.minimum) &&
        (schema.maximum === undefined || value <= schema.maximum);
      if (!ok) issues.push({ field: name, message: `must be ${kind}${range(schema)}` });
      return;
    }
    case 'boolean':
      if (typeof value !== 'boolean') issues.push({ field: name, message: 'must be true or false' });
      return;
    case 'array': {
      if (!Array.isArray(value)) {
        issues.push({ field: name, message: 'must be an array' });
        return;
      }
      if (schema.maxItems !== undefined && value.length > schema.maxItems) {
        issues.push({ field: name, message: `must have at most ${schema.maxItems} items` });
        return;
      }
      if (schema.items) {
        for (const [index, item] of value.entries())
          validate(schema.items, item, join(field, String(index)), issues);
      }
      return;
    }
    default:
      return;
  }
}

function join(parent: string, child: string): string {
  return parent ? `${parent}.${child}` : child;
}

function range(schema: Schema): string {
  const { minimum, maximum } = schema;
  if (minimum !== undefined && maximum !== undefined) return ` from ${minimum} to ${maximum}`;
  if (minimum !== undefined) return ` ≥ ${minimum}`;
  if (maximum !== undefined) return ` ≤ ${maximum}`;
  return '';
}

/** Unicode code points, as JSON Schema counts string lengths (only counted when it can matter). */
function codePoints(value: string, maxLength: number | undefined): number {
  if (maxLength === undefined || value.length <= maxLength) return value.length;
  let count = 0;
  for (const _ of value) count++;
  return count;
}

/**
 * Fastify's validator compiler for the routes of one plugin. A missing body is read as `{}`, so that
 * a POST without one is told which fields it lacks and a PUT without one is an empty update.
 */
export const strictValidatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  return (data: unknown) => {
    const value = httpPart === 'body' && (data === null || data === undefined) ? {} : data;
    const issues: FieldIssue[] = httpPart === 'querystring' ? queryIssues(schema as Schema, value) : [];
    validate(schema as Schema, value, '', issues);
    return issues.length > 0 ? { error: new ValidationError(issues) } : { value };
  };
};
