import { ReferralsPage } from "@/components/dashboard/referrals";

export const metadata = { title: "Referrals · Referral Tracking" };
export default function Page() {
  return <ReferralsPage />;
}
