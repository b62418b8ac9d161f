import type { ChildProcess } from "node:child_process";
export function rpcChainId(url: string, timeoutMs?: number): Promise<number | null>;
export function startLocalChain(opts?: { port?: number; reuse?: boolean; log?: "inherit" | "file" | "ignore"; timeoutMs?: number }): Promise<ChildProcess | null>;
