// npm run bench: every *.bench.ts of this folder, one after another, each in its own process.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const only = process.argv.slice(2);
const folder = new URL('.', import.meta.url).pathname;
const benches = readdirSync(folder)
  .filter((file) => file.endsWith('.bench.ts'))
  .filter((file) => only.length === 0 || only.some((name) => file.includes(name)))
  .sort();
let failed = false;
for (const file of benches) {
  console.log(`\n# ${file}`);
  const result = spawnSync(process.execPath, [folder + file], { stdio: 'inherit' });
  if (result.status !== 0) failed = true;
}
process.exitCode = failed ? 1 : 0;
