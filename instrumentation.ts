// Runs once when the server starts: check the environment (a malformed or, in production,
// missing variable stops the start, named: Next.js would log a failing hook and serve on), stamp
// each request with its client IP (trusted proxies only), open and migrate the database, then
// start the embedded job runner (unless Inngest is configured).
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { checkEnvOrExit } = await import("./server/shared/env");
  checkEnvOrExit();
  const { installClientIpStamp } = await import("./server/http-peer");
  installClientIpStamp();
  const { startServerRuntime } = await import("./server/runtime");
  await startServerRuntime();
}
