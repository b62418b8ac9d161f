// `npm run worker`: a process that only drains jobs (no HTTP): the embedded runner plus the
// retention schedule, against the database at DATABASE_URL. Run as many as the backlog needs;
// they share the queue through leased claims (FOR UPDATE SKIP LOCKED), so no job runs twice.
// Web instances then run with JOB_RUNNER=off (docs/operations.md, "Web and workers").
// SIGINT/SIGTERM: stop claiming, finish the jobs in hand, exit.
import { closeDb, dbKind, dbReady } from "../server/db/client";
import { startJobWorker } from "../server/jobs/worker";
import { checkEnv } from "../server/shared/env";
import { loadSecrets } from "./secrets.mjs";

async function main() {
  if (!process.env.DATABASE_URL) {
    console.warn(
      "[worker] DATABASE_URL is not set: draining the embedded PGlite database at PGLITE_DIR. PGlite allows one process at a time: " +
        "stop the web server first, or use PostgreSQL to run web and workers apart.",
    );
  }
  if (process.env.MIGRATE_ON_START === undefined) process.env.MIGRATE_ON_START = "1";
  // The clone's secrets, as its server loads them (scripts/secrets.mjs); then every variable checked.
  loadSecrets();
  checkEnv();
  await dbReady();
  const worker = startJobWorker();
  console.log(`[worker] draining jobs (${dbKind()}, pid ${process.pid})`);
  let stopping = false;
  const stop = async (sig: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`[worker] ${sig}: finishing the jobs in hand`);
    await worker.stop();
    await closeDb();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}

main().catch((e) => {
  console.error("[worker] failed to start:", e);
  process.exit(1);
});
