import { CommissionRulesPage } from "@/components/dashboard/commission-rules";

export const metadata = { title: "Commission rules · Referral Tracking" };
export default function Page() {
  return <CommissionRulesPage />;
}
