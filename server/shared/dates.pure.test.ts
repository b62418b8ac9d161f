// The one reading of input dates: what the database can hold, nothing JavaScript merely parses.
import { describe, expect, it } from "vitest";
import { isoInstant, utcDay } from "./dates";

describe("input dates", () => {
  it("a UTC day: real days from 1970 to 9999", () => {
    for (const ok of ["1970-01-01", "2026-11-27", "2024-02-29", "9999-12-30"]) expect(utcDay.safeParse(ok).success, ok).toBe(true);
    // The next day of 9999-12-31 is in year 10000, which the database's day ranges cannot end at.
    expect(utcDay.safeParse("9999-12-31").success).toBe(false);
    for (const bad of ["0000-06-01", "1969-12-31", "2026-02-30", "2025-02-29", "2026-13-01", "26-11-27", "2026-11-27T00:00:00Z"]) expect(utcDay.safeParse(bad).success, bad).toBe(false);
  });

  it("an instant: a date (the start of that UTC day) or an ISO 8601 timestamp, from 1970 to 9999 in UTC, read as a Date", () => {
    expect(isoInstant.parse("2026-11-27")).toEqual(new Date("2026-11-27T00:00:00Z"));
    expect(isoInstant.parse("2026-11-27T10:00:00+01:00")).toEqual(new Date("2026-11-27T09:00:00Z"));
    for (const ok of ["2026-11-27T10:00:00Z", "1970-01-01T00:00:00Z", "9999-12-31T23:59:59Z"]) expect(isoInstant.safeParse(ok).success, ok).toBe(true);
    for (const bad of ["0000-06-01", "0001-01-01T00:00:00+01:00", "1970-01-01T00:30:00+01:00", "2026-11-27T10:00:00Zjunk", "yesterday", "1".repeat(41)]) expect(isoInstant.safeParse(bad).success, bad).toBe(false);
  });
});
