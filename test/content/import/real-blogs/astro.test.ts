// An Astro site shaped like the blog starter (test/content/fixtures/real-blogs/astro), read the way
// Astro publishes it: compared with the fixture's expected.json by the shared harness.
import { describeFixture } from './harness.ts';

describeFixture('astro');
