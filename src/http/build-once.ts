// A value built on first use and kept for the life of the process: the browser code (tracker and
// dashboard) is bundled by esbuild on the first request that needs it. A failed build is not kept,
// so the next call tries again.
export function buildOnce<T>(build: () => Promise<T>): () => Promise<T> {
  let built: Promise<T> | null = null;
  return () =>
    (built ??= build().catch((error: unknown) => {
      built = null;
      throw error;
    }));
}
