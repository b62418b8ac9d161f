"use client";
// A participant's way into their portal without a developer: a fresh single-use link to copy and
// hand over (owner), or the same link emailed to them (PORTAL_SIGN_IN, when they have an email).
import { useState } from "react";
import { formatDateTime } from "../format";
import { useMe } from "../shell";
import { useToast } from "../toast";
import { trpc } from "../trpc";
import { Button, Card } from "../ui";

export function PortalLinkCard({ participantId, email }: { participantId: string; email: string | null }) {
  const toast = useToast();
  const { isOwner } = useMe();
  const [link, setLink] = useState<{ url: string; expiresAt: string } | null>(null);
  const make = trpc.participants.portalLink.useMutation({
    onSuccess: async (l) => {
      setLink(l);
      try {
        await navigator.clipboard.writeText(l.url);
        toast("success", "Portal link copied");
      } catch {
        toast("success", "Portal link ready: copy it below");
      }
    },
  });
  const send = trpc.participants.emailPortalLink.useMutation({ onSuccess: () => toast("success", `A portal link is on its way to ${email}`) });
  const error = make.error?.message ?? send.error?.message;
  return (
    <Card title="Portal access" description="Referrers see their link, rewards and payouts, and set their wallet, in their portal. Each link opens it once and works for 24 hours.">
      <div className="flex flex-wrap gap-2">
        {isOwner ? (
          <Button variant="secondary" loading={make.isPending} onClick={() => make.mutate({ participantId })} data-testid="copy-portal-link">
            Copy portal link
          </Button>
        ) : null}
        {email ? (
          <Button variant="secondary" loading={send.isPending} onClick={() => send.mutate({ participantId })} data-testid="email-portal-link">
            Email portal link
          </Button>
        ) : null}
      </div>
      {link ? (
        <p className="mt-3 text-sm text-slate-700" data-testid="portal-link">
          <span className="block font-mono text-xs break-all">{link.url}</span>
          <span className="text-xs text-slate-500">Opens once; expires {formatDateTime(link.expiresAt)}.</span>
        </p>
      ) : null}
      {error ? <p className="mt-2 text-sm text-red-700" role="alert">{error}</p> : null}
    </Card>
  );
}
