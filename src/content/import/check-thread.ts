// The thread that checks every other chunk of a large Folio folder's files (markdown-folder.ts),
// answering each chunk with its files' outcomes as plain data.
import { parentPort } from 'node:worker_threads';
import { failureOf } from '../../db/worker-calls.ts';
import { checkFiles } from './markdown-folder.ts';

parentPort!.on('message', (message: { id: number; root: string; files: string[]; strict: boolean }) => {
  try {
    parentPort!.postMessage({
      id: message.id,
      result: checkFiles(message.root, message.files, { strict: message.strict }),
    });
  } catch (error) {
    parentPort!.postMessage(failureOf(message.id, error));
  }
});
