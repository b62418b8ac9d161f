import Link from "next/link";
import { PortalView } from "@/components/portal/portal-view";
import { portalPreviewForStaff } from "@/server/portal/page-data";

export const dynamic = "force-dynamic";
export const metadata = { title: "Portal preview · Referral Tracking" };

export default async function Page({ params }: { params: Promise<{ participantId: string }> }) {
  const { participantId } = await params;
  const data = await portalPreviewForStaff(participantId).catch(() => null);
  return (
    <>
      <Link href={`/dashboard/participants/${encodeURIComponent(participantId)}`} className="text-sm font-medium text-indigo-700 hover:underline">
        ← Back to the participant
      </Link>
      {data ? <PortalView data={data} preview /> : <p className="mt-6 text-sm text-slate-600">This participant was not found in your business, or your session ended.</p>}
    </>
  );
}
