// Cursor pagination shared by the business lists: newest first, ordered by (createdAt, id) so
// that rows created in the same millisecond keep a stable order. The cursor is the id of the
// last row of the previous page; `limit` is clamped to 1..200 (default 50) like /sdk/referrals.
import { z } from "zod";
import { AppError } from "./errors";
import { queryNumber } from "./strict-types";

// Query strings arrive as text: decimal digits only (see strict-types.ts).
export const listLimit = queryNumber(z.number().int("limit must be an integer"))
  .optional()
  .transform((n) => Math.min(200, Math.max(1, n ?? 50)))
  .meta({ description: "Page size: any integer, clamped into 1..200 (default 50)" });
export const listCursor = z.string().min(1).max(64).optional();

/** Prisma findMany arguments for one page (one extra row tells whether another page exists). */
export function pageArgs(limit: number, cursor: string | undefined) {
  return {
    orderBy: [{ createdAt: "desc" as const }, { id: "desc" as const }],
    take: limit + 1,
    ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
  };
}

/** Trims the extra row and computes nextCursor. */
export function toPage<T extends { id: string }, O>(rows: T[], limit: number, map: (r: T) => O): { data: O[]; nextCursor: string | null } {
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  return { data: page.map(map), nextCursor: more ? page[page.length - 1].id : null };
}

export const pageOutput = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), nextCursor: z.string().nullable() });

/** A cursor that names no row of this list (unknown, or another business's) → 400, like /sdk/referrals. */
export async function checkCursor(cursor: string | undefined, exists: (id: string) => Promise<unknown>) {
  if (cursor && !(await exists(cursor))) {
    throw new AppError("VALIDATION_ERROR", "Invalid cursor", [{ path: "cursor", message: "Not a cursor of this list" }]);
  }
}
