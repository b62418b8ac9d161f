import { OverviewPage } from "@/components/dashboard/overview";

export const metadata = { title: "Overview · Referral Tracking" };
export default function Page() {
  return <OverviewPage />;
}
