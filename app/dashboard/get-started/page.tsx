import { GetStartedPage } from "@/components/dashboard/get-started";

export const metadata = { title: "Get started · Referral Tracking" };
export default function Page() {
  return <GetStartedPage />;
}
