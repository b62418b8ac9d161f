import { DashboardShell } from "@/components/shell";

export const metadata = { title: "Dashboard · Referral Tracking" };
export default function DashboardLayout({ children }: { children: React.ReactNode }) {
  return <DashboardShell>{children}</DashboardShell>;
}
