// A Next.js blog laid out as the tailwind-starter starter (test/content/fixtures/real-blogs/nextjs/tailwind-starter), read the
// way the starter publishes it: compared with the fixture's expected.json by the shared harness.
import { describeFixture } from './harness.ts';

describeFixture('nextjs/tailwind-starter');
