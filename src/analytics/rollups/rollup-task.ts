// The roll-up as a task of the database's worker thread (db/task-worker.ts): one pass of
// rollup-queue.ts on the thread's own connections.
import type { Db, DbTask } from '../../db/database.ts';
import { type RollupResult, rollUpAll, type Viewed } from './rollup-queue.ts';

const rollUp: DbTask<null, RollupResult> = async (db: Db) => {
  const viewed: Viewed[] = [];
  const closedDayProjects = new Set<string>();
  const rolled = await rollUpAll(db, (batch) => {
    viewed.push(...batch.viewed);
    for (const projectId of batch.closedDayProjects) closedDayProjects.add(projectId);
  });
  return { rolled, viewed, closedDayProjects: [...closedDayProjects] };
};

export default rollUp;
