import { ParticipantsPage } from "@/components/dashboard/people";

export const metadata = { title: "Participants · Referral Tracking" };
export default function Page() {
  return <ParticipantsPage />;
}
