import { IntegrationsPage } from "@/components/dashboard/integrations";

export const metadata = { title: "Integrations · Referral Tracking" };
export default function Page() {
  return <IntegrationsPage />;
}
