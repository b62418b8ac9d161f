import { WebhooksPage } from "@/components/dashboard/webhooks";

export const metadata = { title: "Webhooks · Referral Tracking" };
export default function Page() {
  return <WebhooksPage />;
}
