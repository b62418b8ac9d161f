// Per test worker: in-process (domain) tests use the suite's PostgreSQL database, or a
// private in-memory PGlite (the app's PGlite directory belongs to the app process).
import { inject } from "vitest";

const databaseUrl = inject("databaseUrl");
if (databaseUrl) process.env.DATABASE_URL = databaseUrl;
else {
  delete process.env.DATABASE_URL;
  process.env.PGLITE_DIR = "memory://";
  process.env.RTS_PGLITE_TEMPLATE = inject("pgliteTemplate");
}

// The run's TEST chain: domain tests and apps started by tests (startApp) use it too.
process.env.CHAIN_RPC_URL_TEST = inject("chainRpcUrl");
