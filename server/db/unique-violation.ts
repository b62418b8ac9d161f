// Constraint violations and the SQLSTATE of a failed statement, as Prisma or the driver adapter
// report them: the one place that reads a database error's kind.

/** A unique-index violation, as Prisma reports it (P2002) or as the driver adapter passes on PostgreSQL's own error (23505, e.g. from updateMany). */
export function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: string; message?: string; cause?: { message?: string } } | null;
  const msg = `${err?.message ?? ""} ${err?.cause?.message ?? ""}`;
  return err?.code === "P2002" || sqlState(e) === "23505" || /Unique constraint|duplicate key value/i.test(msg);
}

/** A foreign-key violation: Prisma's P2003, PostgreSQL's 23503 under the adapter, or its message. */
export function isForeignKeyViolation(e: unknown): boolean {
  const err = e as { code?: string; message?: string } | null;
  return err?.code === "P2003" || sqlState(e) === "23503" || /violates foreign key constraint|Foreign key constraint/i.test(err?.message ?? "");
}

/**
 * The SQLSTATE of a failed statement (e.g. "22P05"), as the driver adapter passes it on under
 * Prisma's own error (P2010 for a raw statement) or as its message quotes it; null when none.
 */
export function sqlState(e: unknown): string | null {
  const err = e as { code?: unknown; message?: unknown; meta?: { code?: unknown; driverAdapterError?: { cause?: { originalCode?: unknown; code?: unknown } } }; cause?: { originalCode?: unknown; code?: unknown } } | null;
  const cause = err?.meta?.driverAdapterError?.cause ?? err?.cause;
  for (const c of [cause?.originalCode, cause?.code, err?.meta?.code]) if (typeof c === "string" && /^[0-9A-Z]{5}$/.test(c)) return c;
  const quoted = typeof err?.message === "string" ? /Code: `([0-9A-Z]{5})`/.exec(err.message)?.[1] : undefined;
  if (quoted) return quoted;
  // Prisma's own codes (P2002, …) are not SQLSTATEs.
  return typeof err?.code === "string" && /^[0-9A-Z]{5}$/.test(err.code) && !/^P\d{4}$/.test(err.code) ? err.code : null;
}
