// A Docusaurus site as its generator lays it out (test/content/fixtures/real-blogs/docusaurus), read the way
// Docusaurus publishes it: compared with the fixture's expected.json by the shared harness.
import { describeFixture } from './harness.ts';

describeFixture('docusaurus');
