-- Room on each page for the updates every queued event and its job go through (docs/operations.md,
-- "Batched execution"): a tracked event is inserted at intake and updated once when processed; its
-- job is inserted with it and updated when claimed and when finished. With full pages (fillfactor
-- 100) every new row version goes to another page; with a fifth of each page left free it can stay
-- on its own page. Measured with bench/drain.ts, 30,000 full-path events, 10,000 prior rows, eight
-- alternating pairs: 80 drained faster in seven (mean 2,398 vs 2,226 events/s, bench/RESULTS.md).
-- Applies to pages written from now on; existing pages keep their rows as they are.
ALTER TABLE "TrackedEvent" SET (fillfactor = 80);
ALTER TABLE "Job" SET (fillfactor = 80);
