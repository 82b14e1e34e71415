// Small TypeBox builders that produce the plain JSON Schema forms Fastify's serializer handles
// fastest (`type: [T, 'null']`, `enum`) and that read well in the OpenAPI document.
import { type Static, type TSchema, Type } from 'typebox';

export function Nullable<T extends TSchema>(schema: T, options: Record<string, unknown> = {}) {
  const { type, ...rest } = schema as unknown as { type: string };
  return Type.Unsafe<Static<T> | null>({ ...rest, ...options, type: [type, 'null'] });
}

export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: Record<string, unknown> = {},
) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601, UTC, milliseconds' });

/** A comma-separated list that may also be repeated (`tags=a,b&tags=c`). */
export function NameList(description: string) {
  return Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 100, description });
}

/**
 * A query type whose parameters with a `default` are present once validated (Ajv fills them in),
 * although the schema marks them optional, as the OpenAPI document must for generated clients.
 */
export type WithDefaults<T, K extends keyof T> = Omit<T, K> & { [P in K]-?: Exclude<T[P], undefined> };
