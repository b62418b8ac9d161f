import { EventsPage } from "@/components/dashboard/events";

export const metadata = { title: "Events · Referral Tracking" };
export default function Page() {
  return <EventsPage />;
}
