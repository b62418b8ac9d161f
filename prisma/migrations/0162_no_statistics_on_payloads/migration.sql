-- ANALYZE computes no statistics for the JSON payloads of jobs and events and a job's last error.
-- No plan filters, joins or sorts on these columns as stored (a look-up into a payload is an
-- expression, which column statistics do not describe), but ANALYZE read and measured every
-- sampled value of them: most of its time on "Job". The runner analyses these tables as they grow
-- (db/table-stats.ts), and on PGlite, the embedded default, an ANALYZE holds the whole process
-- for as long as it runs.
ALTER TABLE "Job" ALTER COLUMN "payload" SET STATISTICS 0,
                  ALTER COLUMN "result" SET STATISTICS 0,
                  ALTER COLUMN "lastError" SET STATISTICS 0;
ALTER TABLE "TrackedEvent" ALTER COLUMN "metadata" SET STATISTICS 0;
