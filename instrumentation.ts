// Runs once when the server starts: stamp each request with its client IP (trusted proxies
// only), open and migrate the database, then start the embedded job runner (unless Inngest is
// configured).
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { installClientIpStamp } = await import("./server/http-peer");
  installClientIpStamp();
  const { startServerRuntime } = await import("./server/runtime");
  await startServerRuntime();
}
