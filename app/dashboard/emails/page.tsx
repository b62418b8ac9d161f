import { EmailsPage } from "@/components/dashboard/emails";

export const metadata = { title: "Emails · Referral Tracking" };
export default function Page() {
  return <EmailsPage />;
}
