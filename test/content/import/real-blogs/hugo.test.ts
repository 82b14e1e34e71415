// A Hugo site as its generator lays it out (test/content/fixtures/real-blogs/hugo), read the way
// Hugo publishes it: compared with the fixture's expected.json by the shared harness.
import { describeFixture } from './harness.ts';

describeFixture('hugo');
