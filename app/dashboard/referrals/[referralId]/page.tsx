import { ReferralDetailPage } from "@/components/dashboard/people";

export const metadata = { title: "Referral · Referral Tracking" };
export default async function Page({ params }: { params: Promise<{ referralId: string }> }) {
  const { referralId } = await params;
  return <ReferralDetailPage referralId={referralId} />;
}
