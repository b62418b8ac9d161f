import { AuditLogPage } from "@/components/dashboard/audit-log";

export const metadata = { title: "Audit log · Referral Tracking" };
export default function Page() {
  return <AuditLogPage />;
}
