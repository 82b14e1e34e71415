// The numbers that stand for project and article ids in the rows that repeat them (migration 0039).
import { type RawBuilder, sql } from 'kysely';

/** The SQL of a project's number, from its id: a subquery of project_nums' unique index. */
export function projectNumSql(projectId: string): RawBuilder<number> {
  return sql<number>`(select num from project_nums where project_id = ${projectId})`;
}
