import { handleCsvExport } from "@/server/trpc/csv-export";

export const dynamic = "force-dynamic";
export async function GET(req: Request, { params }: { params: Promise<{ kind: string }> }) {
  return handleCsvExport(req, (await params).kind);
}
