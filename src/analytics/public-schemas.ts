// The part of analytics' public face that browser code may import: the tracking bodies, from
// schemas that import nothing but TypeBox. The browser tracker is type-checked without Node's types,
// so it cannot reach public.ts, which also carries the server plugin; everything else uses public.ts.
export type { TrackBodyType, UpdateBodyType } from './ingest/schemas.ts';
