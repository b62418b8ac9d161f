import { ConfigurationPage } from "@/components/dashboard/configuration";

export const metadata = { title: "Configuration · Referral Tracking" };
export default function Page() {
  return <ConfigurationPage />;
}
