#!/usr/bin/env node
// Serves the app: Next.js's request handler behind a plain Node HTTP server, so that a method
// no route can answer gets a 405 in the contract's error shape. Next builds a WHATWG `Request`
// for every request, which refuses TRACE, CONNECT and TRACK outright (Next then answers 500), and
// answers a method a route handler does not export with an empty 405; a path whose
// percent-encoding is not UTF-8 makes it throw.
// Usage: node scripts/serve.mjs [--dev] [-p PORT] [-H HOST]
import http from "node:http";
import path from "node:path";
import { loadSecrets } from "./secrets.mjs";

const args = process.argv.slice(2);
const arg = (flag, fallback) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : fallback);
const dev = args.includes("--dev");
const port = Number(arg("-p", process.env.PORT || "3000"));
const hostname = arg("-H", undefined);
if (!dev) process.env.NODE_ENV = "production";
// The secrets the environment lacks, from .data/secrets.json (generated once): production requires them.
loadSecrets();

/** The methods the app's routes answer; anything else is refused before Next sees it. */
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
const ALLOW = METHODS.join(", ");

/** A path whose percent-encoding is not UTF-8 (e.g. %ED%A0%80, a lone surrogate) makes Next throw (a 500). */
function decodablePath(url) {
  try {
    decodeURIComponent((url ?? "/").split("?")[0]);
    return true;
  } catch {
    return false;
  }
}

function badPath(res) {
  const body = JSON.stringify({ error: { code: "VALIDATION_ERROR", message: "The path's percent-encoding is not valid UTF-8" } });
  res.writeHead(400, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

const errorBody = (method) => JSON.stringify({ error: { code: "METHOD_NOT_ALLOWED", message: `${method} is not allowed on this path` } });

function methodNotAllowed(res, method) {
  const body = errorBody(method);
  res.writeHead(405, { "content-type": "application/json; charset=utf-8", allow: ALLOW, "content-length": Buffer.byteLength(body) });
  res.end(body);
}

/**
 * Next's own 405 (a route without that method) has no JSON body: answer it in the error shape.
 * `writeHead` is where every response's status and headers are fixed (Node's implicit headers
 * go through it too), so the answer is taken over there and what Next writes after is dropped.
 */
function shapeBare405(req, res) {
  const writeHead = res.writeHead.bind(res);
  res.writeHead = (status, ...rest) => {
    const given = rest.find((x) => x && typeof x === "object" && !Array.isArray(x)) ?? {};
    const typed = res.getHeader("content-type") ?? given["content-type"] ?? given["Content-Type"];
    if (status !== 405 || typed) return writeHead(status, ...rest);
    const body = errorBody(req.method);
    writeHead(405, { allow: String(res.getHeader("allow") ?? given.allow ?? given.Allow ?? ALLOW), "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(body) });
    res.end(req.method === "HEAD" ? undefined : body);
    res.write = () => true;
    res.end = () => res;
    return res;
  };
}

const { default: next } = await import("next");
const app = next({ dev, dir: path.resolve(path.dirname(new URL(import.meta.url).pathname), ".."), hostname, port });
const handle = app.getRequestHandler();
await app.prepare();

const server = http.createServer((req, res) => {
  if (!METHODS.includes(req.method ?? "")) return methodNotAllowed(res, req.method);
  if (!decodablePath(req.url)) return badPath(res);
  shapeBare405(req, res);
  return handle(req, res);
});
server.listen(port, hostname, () => {
  console.log(`  ▸ Listening on http://${hostname ?? "localhost"}:${port}`);
});
// As `next start` does: stop accepting, then exit once every listener of the signal has run (the
// app's shutdown hooks, e.g. buffered link clicks, register theirs later and finish before the exit).
const stop = () => {
  server.close();
  setImmediate(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
