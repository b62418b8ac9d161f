// The committed contract builds are what the sources compile to today: a change to a .sol file
// (or to the pinned compiler or OpenZeppelin) without `npm run contracts` fails here.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BUILD_DIR, buildText, compileContracts } from "../../scripts/compile-contracts.mjs";

describe("contracts/build", () => {
  it("matches a fresh compilation of contracts/*.sol", () => {
    const built = compileContracts();
    expect(Object.keys(built).sort()).toEqual(["BatchPayout", "TestToken", "TestUSDC"]);
    for (const [name, artifact] of Object.entries(built)) {
      expect(readFileSync(path.join(BUILD_DIR, `${name}.json`), "utf8"), `contracts/build/${name}.json is stale: run npm run contracts`).toBe(buildText(artifact));
    }
  }, 60_000);
});
