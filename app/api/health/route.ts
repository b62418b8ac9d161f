import { db, dbKind, dbReady } from "@/server/db/client";

export const dynamic = "force-dynamic";
export async function GET() {
  try {
    await dbReady();
    await db.$queryRaw`SELECT 1`;
    return Response.json({ ok: true, database: dbKind() });
  } catch {
    return Response.json({ error: { code: "SERVICE_UNAVAILABLE", message: "The database is unavailable" } }, { status: 503 });
  }
}
