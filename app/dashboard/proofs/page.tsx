import { ProofsPage } from "@/components/dashboard/proofs";

export const metadata = { title: "Proofs · Referral Tracking" };
export default function Page() {
  return <ProofsPage />;
}
