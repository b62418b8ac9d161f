// Process start-up for the Next.js server: database first, then background work.
import { dbReady } from "./db/client";

export async function startServerRuntime() {
  await dbReady();
}
