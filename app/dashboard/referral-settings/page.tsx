import { ReferralSettingsPage } from "@/components/dashboard/referral-settings";

export const metadata = { title: "Referral rules · Referral Tracking" };
export default function Page() {
  return <ReferralSettingsPage />;
}
