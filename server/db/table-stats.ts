// Planner statistics for the tables the job path reads, kept up by the runner itself when nothing
// else does. A table that grew since its last ANALYZE is planned from stale or default estimates:
// a large queue table never analysed makes every claim read and sort the whole backlog instead of
// taking the first jobs from the (status, runAt) index. PostgreSQL's autovacuum analyses a table
// only once enough of it changed, when it is on and after its naptime, which a burst of intake
// outruns; PGlite, the embedded default, has no autovacuum at all.
//
// The check is cheap (each table's size on disk against the page count of its last ANALYZE or
// VACUUM, as pg_class keeps it), and ANALYZE runs under a lock that blocks neither reads nor
// writes, skips the JSON payloads (migration 0162) and samples STATS_TARGET × 300 rows: the job
// path's plans need row counts and the few values of its status and type columns, not fine
// histograms, and autovacuum's own ANALYZE (PostgreSQL) still samples at the server's default.
import { db, pgliteTurn, rawRows } from "./client";

/** Tables whose plans the claim, the event batch and the SDK reads depend on (fixed names: they are quoted into ANALYZE). */
const TABLES = ["Job", "TrackedEvent", "Participant", "Referral", "Reward", "LedgerEntry"] as const;
/** Analyse a table once it is this many times larger than at its last ANALYZE / VACUUM… */
const GROWTH = 1.2;
/** …and at least this many pages (8 KB each): small tables are planned well from defaults. */
const MIN_PAGES = 128;
/** The runner's ANALYZEs' statistics target (PostgreSQL's default is 100): a tenth of the sample, and of the time. */
export const STATS_TARGET = 10;

/**
 * ANALYZEs each listed table that grew by GROWTH since its last ANALYZE or VACUUM (or was never
 * analysed) and is at least MIN_PAGES; answers the tables it analysed.
 */
export async function analyzeGrownTables(): Promise<string[]> {
  const rows = await rawRows<{ name: string; pages: number; known: number }>(
    `SELECT t.name, (pg_relation_size(c.oid) / current_setting('block_size')::int)::int AS pages, c.relpages AS known
       FROM unnest($1::text[]) AS t(name) JOIN pg_class c ON c.oid = to_regclass(quote_ident(t.name))`,
    [...TABLES],
  );
  const size = new Map(rows.map((r) => [r.name, r]));
  // The names quoted into ANALYZE are the fixed list's own, never the database's answer.
  const grown = TABLES.filter((name) => {
    const r = size.get(name);
    return r !== undefined && r.pages >= MIN_PAGES && r.pages > r.known * GROWTH;
  });
  for (const name of grown) {
    // On PGlite an ANALYZE holds the process for its whole run: the process's requests between them.
    await pgliteTurn();
    await db.$transaction([db.$executeRawUnsafe(`SET LOCAL default_statistics_target = ${STATS_TARGET}`), db.$executeRawUnsafe(`ANALYZE "${name}"`)]);
  }
  return grown;
}

let lastCheck = 0;
let failed = false;

/**
 * The runner's call: analyzeGrownTables at most once per `everyMs`; a failure (say, a database
 * role that does not own the tables) is reported once and never stops the runner.
 */
export async function keepTableStats(everyMs: number, now = Date.now()): Promise<void> {
  if (now - lastCheck < everyMs) return;
  lastCheck = now;
  try {
    await analyzeGrownTables();
  } catch (e) {
    if (!failed) console.error("[jobs] could not refresh planner statistics:", (e as Error).message);
    failed = true;
  }
}
