// The shapes of an article's revisions (the write API's revision endpoints), apart from the routes so
// that the client package can read them without server code.
import { Type } from 'typebox';

export const RevisionSummary = Type.Object({
  id: Type.String(),
  version: Type.Integer(),
  source: Type.String({ description: '`api`, `import` or `cli`' }),
  createdAt: Type.String(),
});

export const RevisionDetail = Type.Object({
  ...RevisionSummary.properties,
  snapshot: Type.Object({}, { additionalProperties: true }),
});
