// The thread of render-ahead.ts: renders the articles it is sent, a list at a time, in order.
import { parentPort } from 'node:worker_threads';
import { failureOf } from '../../db/worker-calls.ts';
import type { ArticleInput } from './records.ts';
import { renderArticle } from './render.ts';

parentPort!.on('message', (message: { id: number; articles: ArticleInput[] }) => {
  try {
    parentPort!.postMessage({ id: message.id, result: message.articles.map(renderArticle) });
  } catch (error) {
    parentPort!.postMessage(failureOf(message.id, error));
  }
});
