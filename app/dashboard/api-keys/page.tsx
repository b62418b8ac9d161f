import { ApiKeysPage } from "@/components/dashboard/api-keys";

export const metadata = { title: "API keys · Referral Tracking" };
export default function Page() {
  return <ApiKeysPage />;
}
