import { ParticipantDetailPage } from "@/components/dashboard/people";

export const metadata = { title: "Participant · Referral Tracking" };
export default async function Page({ params }: { params: Promise<{ participantId: string }> }) {
  const { participantId } = await params;
  return <ParticipantDetailPage participantId={participantId} />;
}
