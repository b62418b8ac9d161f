import { PortalSignInForm } from "@/components/portal/sign-in-form";
import { resolveBusiness } from "@/server/domain/email/service";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sign in to your referral portal", robots: { index: false } };

export default async function Page({ searchParams }: { searchParams: Promise<{ business?: string | string[] }> }) {
  const raw = (await searchParams).business;
  const given = typeof raw === "string" ? raw.slice(0, 64) : "";
  const business = given ? await resolveBusiness(given) : null;
  return (
    <main className="mx-auto max-w-md px-4 py-12">
      {business ? (
        <>
          <p className="text-sm font-medium text-indigo-700">{business.name}</p>
          <h1 className="text-2xl font-semibold tracking-tight text-slate-900">Sign in to your referral portal</h1>
          <p className="mt-2 text-sm text-slate-600">Enter the email you use with {business.name}. We email you a link that opens your portal: your referral link, rewards, payouts and wallet.</p>
          <PortalSignInForm businessId={business.id} />
        </>
      ) : (
        <>
          <h1 className="text-2xl font-semibold tracking-tight text-slate-900">Sign in to your referral portal</h1>
          <p className="mt-2 text-sm text-slate-600">This sign-in link does not name a referral program. Use the link the business shared with you.</p>
        </>
      )}
    </main>
  );
}
