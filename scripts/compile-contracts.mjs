#!/usr/bin/env node
// Compiles every contracts/*.sol with the solc npm package (the compiler as WebAssembly, pinned in
// package.json: nothing downloaded) and writes contracts/build/<Name>.json = { abi, bytecode } for
// the contract named like its file. The build is committed, so neither `npm start` nor the tests
// compile; server/chain/contracts.test.ts recompiles and fails when a committed build is stale.
//
//   npm run contracts         compile and write contracts/build/
//   compileContracts()        the same outputs, in memory (the staleness test)
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SOURCES = path.join(ROOT, "contracts");
export const BUILD_DIR = path.join(SOURCES, "build");
const require = createRequire(import.meta.url);

/** Where an import lives: our own contracts/ (relative imports) or a package in node_modules. */
function findImports(name) {
  try {
    const file = name.startsWith("contracts/") ? path.join(ROOT, name) : require.resolve(name);
    return { contents: readFileSync(file, "utf8") };
  } catch {
    return { error: `not found: ${name}` };
  }
}

/** Every contract of contracts/*.sol named like its file: { Name: { abi, bytecode } }. */
export function compileContracts() {
  const solc = require("solc");
  const files = readdirSync(SOURCES).filter((f) => f.endsWith(".sol")).sort();
  const sources = Object.fromEntries(files.map((f) => [`contracts/${f}`, { content: readFileSync(path.join(SOURCES, f), "utf8") }]));
  const input = {
    language: "Solidity",
    sources,
    settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: "cancun", outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }));
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join("\n"));
  const built = {};
  for (const f of files) {
    const name = f.replace(/\.sol$/, "");
    const c = output.contracts[`contracts/${f}`]?.[name];
    if (!c) throw new Error(`contracts/${f} defines no contract named ${name}`);
    built[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
  }
  return built;
}

/** The text a build file holds (stable, so an unchanged contract leaves its file unchanged). */
export const buildText = (artifact) => `${JSON.stringify(artifact, null, 2)}\n`;

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  mkdirSync(BUILD_DIR, { recursive: true });
  for (const [name, artifact] of Object.entries(compileContracts())) {
    writeFileSync(path.join(BUILD_DIR, `${name}.json`), buildText(artifact));
    console.log(`✓ contracts/build/${name}.json`);
  }
}
