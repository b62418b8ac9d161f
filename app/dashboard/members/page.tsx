import { MembersPage } from "@/components/dashboard/members";

export const metadata = { title: "Members · Referral Tracking" };
export default function Page() {
  return <MembersPage />;
}
