// Runs once when the server starts: open and migrate the database, then start the embedded
// job runner (unless Inngest is configured).
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startServerRuntime } = await import("./server/runtime");
  await startServerRuntime();
}
