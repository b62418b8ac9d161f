import { PortalSignedOut, PortalView } from "@/components/portal/portal-view";
import { portalPageForCookie } from "@/server/portal/page-data";

export const dynamic = "force-dynamic";
export const metadata = { title: "Your referrals", robots: { index: false } };

export default async function Page() {
  const data = await portalPageForCookie();
  return data ? (
    <main>
      <PortalView data={data} />
    </main>
  ) : (
    <PortalSignedOut />
  );
}
