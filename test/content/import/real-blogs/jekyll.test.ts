// A Jekyll site as its generator lays it out (test/content/fixtures/real-blogs/jekyll), read the way
// Jekyll publishes it: compared with the fixture's expected.json by the shared harness.
import { describeFixture } from './harness.ts';

describeFixture('jekyll');
