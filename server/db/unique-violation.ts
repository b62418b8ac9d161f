// A unique-index violation, as Prisma reports it (P2002) or as the driver adapter passes on
// PostgreSQL's own error (23505, e.g. from updateMany).
export function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: string; message?: string; cause?: { code?: string; message?: string } } | null;
  const code = err?.code ?? err?.cause?.code;
  const msg = `${err?.message ?? ""} ${err?.cause?.message ?? ""}`;
  return code === "P2002" || code === "23505" || /Unique constraint|duplicate key value/i.test(msg);
}
