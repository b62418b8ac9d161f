#!/usr/bin/env node
// The local TEST chain: Hardhat 3's own `node` JSON-RPC server on EDR (chainId 31337, the
// standard dev mnemonic's 20 prefunded accounts, automine), on 127.0.0.1:LOCAL_CHAIN_PORT (8545).
//
// Why programmatic and not `npx hardhat node`: Hardhat 3's CLI refuses Node < 22.13 with a hard
// version gate, and this project runs on Node 20. Hardhat's runtime and EDR's native binding
// themselves work on Node 20 (N-API is ABI-stable), so this file builds the Hardhat runtime
// environment in code and runs the same built-in `node` task the CLI would run. EDR's native
// binding is one optional dependency per platform; scripts/ensure.mjs (ensureChainBinding)
// makes sure the one for this machine is there, and explains when no binding fits.
//
//   node scripts/local-chain.mjs [--port 8545]   run the chain in the foreground
//   startLocalChain()                             used by `npm start` / `npm run dev` and the tests
import { spawn } from "node:child_process";
import { mkdirSync, openSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const HOST = "127.0.0.1";

/** Asks a JSON-RPC endpoint for its chain id; null when nothing (or no EVM) answers. */
export async function rpcChainId(url, timeoutMs = 1500) {
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok) return null;
    const body = await res.json();
    return typeof body?.result === "string" ? Number.parseInt(body.result, 16) : null;
  } catch {
    return null;
  }
}

/**
 * Starts the local chain as a child process and waits until it answers eth_chainId.
 * When something already answers on the port (a chain left running, another `npm start`),
 * it is reused and null is returned. The child exits by itself when its parent goes away
 * (IPC channel closed), so a crashed parent never leaves a chain behind.
 *
 * @param {{ port?: number, reuse?: boolean, log?: "inherit" | "file" | "ignore", timeoutMs?: number }} [opts]
 * @returns {Promise<import("node:child_process").ChildProcess | null>}
 */
export async function startLocalChain(opts = {}) {
  const port = Number(opts.port ?? process.env.LOCAL_CHAIN_PORT ?? 8545);
  const url = `http://${HOST}:${port}`;
  if (opts.reuse !== false && (await rpcChainId(url)) !== null) {
    console.log(`▸ TEST chain: reusing the JSON-RPC node already at ${url}`);
    return null;
  }
  const { ensureChainBinding } = await import("./ensure.mjs");
  const problem = ensureChainBinding();
  if (problem) {
    throw new Error(
      `The local TEST chain cannot start here: ${problem}. Set LOCAL_CHAIN=0 and point CHAIN_RPC_URL_TEST at a development chain (Hardhat, Anvil) instead.`,
    );
  }
  const logMode = opts.log ?? "file";
  let stdio = ["ignore", "ignore", "ignore", "ipc"];
  let logFile = "";
  if (logMode === "inherit") stdio = ["ignore", "inherit", "inherit", "ipc"];
  else if (logMode === "file") {
    mkdirSync(path.join(ROOT, ".data"), { recursive: true });
    logFile = path.join(ROOT, ".data", `local-chain-${port}.log`);
    const fd = openSync(logFile, "w");
    stdio = ["ignore", fd, fd, "ipc"];
  }
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), "--port", String(port)], { cwd: ROOT, stdio, env: process.env });
  let exited = false;
  child.once("exit", () => (exited = true));
  const deadline = Date.now() + (opts.timeoutMs ?? 90_000);
  while ((await rpcChainId(url)) === null) {
    if (exited) {
      throw new Error(
        `The local chain exited during start-up${logFile ? ` (see ${logFile})` : ""}; if port ${port} is taken, ` +
          "set LOCAL_CHAIN_PORT, point CHAIN_RPC_URL_TEST at a running node, or LOCAL_CHAIN=0",
      );
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`The local chain did not answer on ${url} in time${logFile ? ` (see ${logFile})` : ""}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  // The parent must not wait on the IPC channel to exit.
  child.channel?.unref();
  console.log(`▸ TEST chain: Hardhat 3 / EDR node at ${url} (chainId 31337)${logFile ? `, log ${path.relative(ROOT, logFile)}` : ""}`);
  return child;
}

/** Runs Hardhat's built-in `node` task in this process until it is stopped. */
async function serve(port) {
  const { ensureChainBinding } = await import("./ensure.mjs");
  const problem = ensureChainBinding();
  if (problem) {
    throw new Error(
      `The local TEST chain cannot start here: ${problem}. Set LOCAL_CHAIN=0 and point CHAIN_RPC_URL_TEST at a development chain (Hardhat, Anvil) instead.`,
    );
  }
  const { createHardhatRuntimeEnvironment } = await import("hardhat/hre");
  const hre = await createHardhatRuntimeEnvironment(
    {
      // Keep Hardhat's working folders out of the source tree.
      paths: { artifacts: path.join(ROOT, ".data", "hardhat", "artifacts"), cache: path.join(ROOT, ".data", "hardhat", "cache") },
      networks: {
        node: {
          type: "edr-simulated",
          chainType: "l1",
          chainId: 31337,
          // Like a real node: a reverted transaction is mined and reported in its receipt,
          // not turned into a JSON-RPC error at send time.
          throwOnTransactionFailures: false,
          throwOnCallFailures: true,
        },
      },
    },
    {},
    ROOT,
  );
  if (process.send) process.on("disconnect", () => process.exit(0));
  for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => process.exit(0));
  await hre.tasks.getTask("node").run({ hostname: HOST, port });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const i = process.argv.indexOf("--port");
  const port = Number(i > 0 ? process.argv[i + 1] : (process.env.LOCAL_CHAIN_PORT ?? 8545));
  serve(port).catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
