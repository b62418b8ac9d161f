import { BalancePage } from "@/components/dashboard/balance";

export const metadata = { title: "Balance & funding · Referral Tracking" };
export default function Page() {
  return <BalancePage />;
}
