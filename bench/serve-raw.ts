// The baseline: a bare node:http server sending precomputed answers. BENCH_BODY_FILE: one body
// (200) for every request; BENCH_ANSWERS_FILE instead: a JSON list of
// `{ method, prefix, status, body }` (body in base64), the first whose method and path prefix match
// the request answers it, after the request's body has been read (as the app reads it).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

interface Answer {
  method: string;
  prefix: string;
  status: number;
  body: Buffer;
}

const answers: Answer[] = process.env.BENCH_ANSWERS_FILE
  ? (
      JSON.parse(readFileSync(process.env.BENCH_ANSWERS_FILE, 'utf8')) as Array<
        Omit<Answer, 'body'> & { body: string }
      >
    ).map((answer) => ({ ...answer, body: Buffer.from(answer.body, 'base64') }))
  : [{ method: '', prefix: '', status: 200, body: readFileSync(process.env.BENCH_BODY_FILE!) }];

const server = createServer((request, response) => {
  const answer =
    answers.find(
      ({ method, prefix }) => (method === '' || method === request.method) && request.url!.startsWith(prefix),
    ) ?? answers[0];
  const send = () => {
    response.writeHead(answer.status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': answer.body.length,
    });
    response.end(answer.body);
  };
  if (request.method === 'GET') return send();
  request.resume();
  request.on('end', send);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send!({ port: typeof address === 'object' && address ? address.port : 0 });
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
