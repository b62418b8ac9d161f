// Test file order: the longest files first, so that the two workers finish together instead of
// one running a long file alone at the end. Vitest already orders by the durations it measured
// in earlier runs (its results cache under node_modules/.vite); when some files have never been
// measured there (a fresh clone), it falls back to file size, which would start the longest unit
// file (server/jobs/workers.test.ts, a small file) late. Then the files known to be slow go first.
import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The slowest files of each layer, slowest first (measured in CI; order matters, not the list's
 * completeness). The http layer's chain files take 40–110 s each on PGlite: started last, one of
 * them alone set the layer's end.
 */
const KNOWN_SLOW = [
  "server/jobs/workers.test.ts",
  "server/domain/rewards/engine.test.ts",
  "server/rest/business-rest-fuzz.test.ts",
  "server/domain/ledger/balance.test.ts",
  "server/jobs/batch.test.ts",
  "server/sdk/fuzz.test.ts",
  "tests/http/payouts-crash.test.ts",
  "tests/http/faults.test.ts",
  "tests/http/funding-chain.test.ts",
  "tests/http/payouts-chain.test.ts",
  "tests/http/sdk-client.test.ts",
  "tests/http/rewards-concurrency.test.ts",
  "tests/http/funding-verify.test.ts",
];

export class LongestFirst extends BaseSequencer {
  async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rel = (f: TestSpecification) => path.relative(this.ctx.config.root, f.moduleId).split(path.sep).join("/");
    if (sorted.every((f) => this.ctx.cache.getFileTestResults(`${f.project.name}:${rel(f)}`))) return sorted;
    const rank = (f: TestSpecification) => {
      const i = KNOWN_SLOW.indexOf(rel(f));
      return i === -1 ? KNOWN_SLOW.length : i;
    };
    // Projects stay in Vitest's order (they are contiguous in `sorted`); within one, known slow files first.
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => (a.f.project.name === b.f.project.name ? rank(a.f) - rank(b.f) : 0) || a.i - b.i)
      .map(({ f }) => f);
  }
}
