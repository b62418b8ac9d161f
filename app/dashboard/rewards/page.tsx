import { RewardsPage } from "@/components/dashboard/rewards";

export const metadata = { title: "Rewards · Referral Tracking" };
export default function Page() {
  return <RewardsPage />;
}
