// The Folio app over DATABASE_URL in a child process of the durability test, which kills it with
// SIGKILL while it answers tracking requests. Sends `{ port }` to the parent when it listens.
import { buildApp } from '../../src/app.ts';
import { openDatabase } from '../../src/db/database.ts';

const db = openDatabase(process.env.DATABASE_URL!);
const app = await buildApp({ db });
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
process.send!({ port: typeof address === 'object' && address ? address.port : 0 });
