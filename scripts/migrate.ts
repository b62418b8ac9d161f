// `npm run db:migrate`: applies prisma/migrations to the PostgreSQL at DATABASE_URL
// (PGlite applies them by itself on start).
import pg from "pg";
import { applyMigrations } from "../server/db/migrate";

const url = process.env.DATABASE_URL;
if (!url) {
  console.error("DATABASE_URL is not set: the embedded PGlite database migrates itself on start.");
  process.exit(1);
}
const pool = new pg.Pool({ connectionString: url, max: 1 });
applyMigrations({ query: (s, p) => pool.query(s, p), exec: async (s) => void (await pool.query(s)) })
  .then((applied) => console.log(applied.length ? `Applied: ${applied.join(", ")}` : "Database is up to date."))
  .catch((e) => {
    console.error(e);
    process.exitCode = 1;
  })
  .finally(() => pool.end());
