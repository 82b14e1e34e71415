// Loaded into the server by memory.bench.ts (`--import`): in the main thread and, as workers inherit
// the process's execArgv, in each worker thread started on a file, whose copy records its script's
// name (a worker started on code is named by its Worker's name option);
// on SIGUSR2 the main thread writes to BENCH_MEMORY_FILE the process's memory and the heap of every
// isolate (its own, and each live worker's through worker.getHeapStatistics()).
import { subscribe } from 'node:diagnostics_channel';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { isMainThread, threadId } from 'node:worker_threads';

const file = process.env.BENCH_MEMORY_FILE;
const nameFile = (id) => `${file}.thread-${id}`;

function statusBytes(status, field) {
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
}

/** The MemoryReport of memory.bench.ts. */
async function report(workers) {
  const own = getHeapStatistics();
  const isolates = [
    {
      thread: 'main',
      usedHeap: own.used_heap_size,
      totalHeap: own.total_heap_size,
      external: own.external_memory,
    },
  ];
  for (const worker of workers) {
    try {
      const heap = await worker.getHeapStatistics();
      let thread = worker.threadName || `worker ${worker.threadId}`;
      try {
        thread = readFileSync(nameFile(worker.threadId), 'utf8');
      } catch {
        // named by the Worker's name option (db/worker-script.ts), or not started yet
      }
      isolates.push({
        thread,
        usedHeap: heap.used_heap_size,
        totalHeap: heap.total_heap_size,
        external: heap.external_memory,
      });
    } catch {
      workers.delete(worker); // it has ended
    }
  }
  const status = readFileSync('/proc/self/status', 'utf8');
  return {
    rss: statusBytes(status, 'VmRSS'),
    rssAnon: statusBytes(status, 'RssAnon'),
    rssFile: statusBytes(status, 'RssFile'),
    threads: Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 0),
    isolates,
  };
}

if (file !== undefined && isMainThread) {
  const workers = new Set();
  subscribe('worker_threads', (message) => workers.add(message.worker));
  process.on('SIGUSR2', () => {
    void report(workers).then((result) => writeFileSync(file, JSON.stringify(result)));
  });
} else if (file !== undefined) {
  // A worker started on a file (not on code) is named by it.
  const script = process.argv[1];
  if (script !== undefined && !script.startsWith('['))
    writeFileSync(nameFile(threadId), basename(script).replace(/\.ts$/, ''));
}
