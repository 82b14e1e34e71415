// The page-view writer's batches as http/ hears of them: the metrics count them and /ready takes
// a committed one as proof that writes work again. The writer is analytics'; app.ts subscribes.

/** One batch of page-view writes, committed or failed. */
export interface WriteBatch {
  size: number;
  seconds: number;
  committed: boolean;
}

/** Calls `listener` after each batch on the app's database; returns what stops it. */
export type WriteBatches = (listener: (batch: WriteBatch) => void) => () => void;
