// Dates taken as input: one rule for every route that filters or counts by day or instant. A
// date must also be one the database takes: JavaScript reads "0000-06-01" (year 0), which
// PostgreSQL refuses ("date/time field value out of range"), so the years are bounded to
// 1970–9999 (nothing in the service is older than the Unix epoch); a day, to 9999-12-30 (a range
// that ends on a day ends at the start of the next one, which must still be a four-digit year).
import { z } from "zod";

const FIRST = Date.UTC(1970, 0, 1);
const LAST = Date.UTC(10000, 0, 1);
// The last day is one whose next day is still a four-digit year: day ranges end at the next day's start.
const LAST_DAY = Date.UTC(9999, 11, 31);
const inRange = (t: number, last = LAST) => !Number.isNaN(t) && t >= FIRST && t < last;

/** A UTC day "YYYY-MM-DD", 1970-01-01 to 9999-12-30. */
export const utcDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "Must be a UTC date YYYY-MM-DD")
  .refine((s) => {
    const t = Date.parse(`${s}T00:00:00Z`);
    return inRange(t, LAST_DAY) && new Date(t).toISOString().startsWith(s);
  }, "Invalid date (YYYY-MM-DD, 1970-01-01 to 9999-12-30)");

const INSTANT = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * An instant: "2025-01-31" (the start of that UTC day) or an ISO 8601 timestamp, between 1970 and
 * 9999 in UTC; read as a Date. List filters (from, to) and the commission simulation.
 */
export const isoInstant = z
  .string()
  .max(40)
  .refine((s) => INSTANT.test(s) && inRange(Date.parse(dayStart(s))), "Must be a date (YYYY-MM-DD) or an ISO 8601 timestamp, 1970 to 9999")
  .transform((s) => new Date(dayStart(s)))
  .meta({ pattern: INSTANT.source, description: "A date YYYY-MM-DD (the start of that UTC day) or an ISO 8601 timestamp such as 2026-11-27T10:00:00Z, 1970 to 9999" });

const dayStart = (s: string) => (/^\d{4}-\d{2}-\d{2}$/.test(s) ? `${s}T00:00:00Z` : s);
