// `node src/cli/build-assets.ts` (npm run build:assets): bundles the browser code, the tracker
// script and the dashboard, into dist/assets/ with a manifest of hashes. The Docker image runs it
// at build time; the server then serves those files instead of bundling at the first request.
import { bundleDashboard } from '../dashboard/assets.ts';
import { prebuiltDirectory, writePrebuilt } from '../http/build-once.ts';
import { compileTracker } from '../tracker/script.ts';

await writePrebuilt('tracker', await compileTracker());
await writePrebuilt('dashboard', await bundleDashboard());
process.stdout.write(`Browser assets written to ${prebuiltDirectory}\n`);
