"use client";
// The portal's payout wallet: shows it and whether it is verified, and proves one by Sign-In with
// Ethereum in either of two ways that end in the same verified state (/portal/api/wallet*): an
// injected browser wallet (EIP-1193) signs the challenge, or, without one, the participant pastes
// an address, copies the message, signs it in any wallet (a phone wallet, a hardware wallet's app,
// a smart-contract wallet: EIP-1271 is checked on the environment's chain) and pastes the signature.
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import type { PortalPageData } from "@/server/portal/page-data";
import { CopyButton } from "../copy-button";
import { formatDateTime } from "../format";
import { Badge, Button, Card, Field, Input, Notice, Textarea } from "../ui";
import { useAsset } from "../money";

type Eip1193 = { request(args: { method: string; params?: unknown[] }): Promise<unknown> };
type Challenge = { message: string; nonce: string; expiresAt: string };

async function postJson<T>(path: string, body: unknown): Promise<T> {
  const res = await fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const json = (await res.json()) as { error?: { message: string; details?: unknown } } & T;
  if (!res.ok) {
    const field = Array.isArray(json.error?.details) ? (json.error.details as { message?: string }[])[0]?.message : undefined;
    throw new Error(field ?? json.error?.message ?? `Request failed (${res.status})`);
  }
  return json;
}

/** Sign the challenge somewhere else: address → message to copy → signature to paste. */
function PasteSignature({ onVerified }: { onVerified: () => void }) {
  const [address, setAddress] = useState("");
  const [challenge, setChallenge] = useState<Challenge | null>(null);
  const [signature, setSignature] = useState("");
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  async function getMessage(e: FormEvent) {
    e.preventDefault();
    setProblem(null);
    setBusy(true);
    try {
      setChallenge(await postJson<Challenge>("/portal/api/wallet/challenge", { address: address.trim() }));
      setSignature("");
    } catch (err) {
      setProblem(err instanceof Error ? err.message : "Could not prepare the message");
    } finally {
      setBusy(false);
    }
  }
  async function verify(e: FormEvent) {
    e.preventDefault();
    if (!challenge) return;
    setProblem(null);
    setBusy(true);
    try {
      await postJson("/portal/api/wallet", { message: challenge.message, signature: signature.trim() });
      onVerified();
    } catch (err) {
      setProblem(err instanceof Error ? err.message : "The signature was not accepted");
    } finally {
      setBusy(false);
    }
  }
  return (
    <div className="space-y-4">
      <form onSubmit={getMessage} noValidate aria-label="Wallet address to verify" className="space-y-3">
        <Field label="1. Your wallet address" hint="The address that should receive your rewards (0x followed by 40 characters). Smart-contract wallets work too.">
          {(p) => <Input {...p} name="address" value={address} onChange={(e) => setAddress(e.target.value)} placeholder="0x…" autoComplete="off" spellCheck={false} maxLength={64} className="font-mono" />}
        </Field>
        <Button type="submit" variant="secondary" loading={busy && !challenge} disabled={!address.trim()}>
          Get the message to sign
        </Button>
      </form>
      {challenge && (
        <form onSubmit={verify} noValidate aria-label="Signature to verify" className="space-y-3">
          <div className="space-y-1.5">
            <p className="text-sm font-medium text-slate-800" id="siwe-message-label">
              2. Sign this message in your wallet
            </p>
            <pre className="max-h-48 overflow-auto rounded-md bg-slate-50 p-3 text-xs break-all whitespace-pre-wrap text-slate-800 ring-1 ring-slate-200" aria-labelledby="siwe-message-label" data-testid="siwe-message" tabIndex={0}>
              {challenge.message}
            </pre>
            <div className="flex flex-wrap items-center gap-2">
              <CopyButton text={challenge.message} label="Copy message" />
              <span className="text-xs text-slate-600">Use your wallet&apos;s “Sign message” (personal_sign). Valid until {formatDateTime(challenge.expiresAt)}.</span>
            </div>
          </div>
          <Field label="3. Paste the signature" hint="Your wallet shows it after signing: 0x followed by hexadecimal characters.">
            {(p) => <Textarea {...p} name="signature" value={signature} onChange={(e) => setSignature(e.target.value)} rows={3} placeholder="0x…" spellCheck={false} className="font-mono text-xs" />}
          </Field>
          <Button type="submit" loading={busy} disabled={!signature.trim()}>
            Verify signature
          </Button>
        </form>
      )}
      {problem && <Notice tone="danger">{problem}</Notice>}
    </div>
  );
}

export function WalletCard({ wallet, readOnly, customer }: { wallet: PortalPageData["me"]["wallet"]; readOnly: boolean; customer: boolean }) {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [pasting, setPasting] = useState(false);
  const [done, setDone] = useState(false);
  const verified = () => {
    setDone(true);
    setPasting(false);
    router.refresh();
  };
  async function verifyInBrowser() {
    setProblem(null);
    const eth = (window as unknown as { ethereum?: Eip1193 }).ethereum;
    if (!eth) {
      setProblem("No browser wallet found in this browser: use “Sign in another wallet” below, or open this page in your wallet's browser.");
      setPasting(true);
      return;
    }
    setBusy(true);
    try {
      const [address] = (await eth.request({ method: "eth_requestAccounts" })) as string[];
      const challenge = await postJson<Challenge>("/portal/api/wallet/challenge", { address });
      const signature = await eth.request({ method: "personal_sign", params: [challenge.message, address] });
      await postJson("/portal/api/wallet", { message: challenge.message, signature });
      verified();
    } catch (e) {
      setProblem(e instanceof Error ? e.message : "The wallet did not sign");
    } finally {
      setBusy(false);
    }
  }
  const { symbol } = useAsset();
  const description = customer ? `Your rewards are paid in ${symbol} to a wallet you own. Add one to receive them.` : `Rewards are paid in ${symbol} to this wallet.`;
  return (
    <Card title="Payout wallet" description={description}>
      <div className="space-y-3 text-sm">
        {wallet.address ? (
          <p className="flex flex-wrap items-center gap-2">
            <span className="min-w-0 font-mono break-all" data-testid="wallet-address">{wallet.address}</span>
            {wallet.verified ? <Badge color="green">Verified</Badge> : <Badge color="amber">Not verified</Badge>}
          </p>
        ) : (
          <p className="text-slate-600">No wallet yet{customer ? ": what you are owed waits here until you add one." : "."}</p>
        )}
        {wallet.verified && wallet.verifiedAt && <p className="text-slate-600">Verified by signature on {formatDateTime(wallet.verifiedAt)}.</p>}
        {done && <Notice tone="success">Wallet verified: payouts go to it from now on.</Notice>}
        {!wallet.verified && wallet.verificationRequired && <p className="text-slate-700">Payouts are sent only to a wallet you verify by signing a message.</p>}
        {!readOnly && (
          <div className="flex flex-wrap gap-2">
            <Button onClick={verifyInBrowser} loading={busy}>
              {wallet.verified ? "Use another wallet" : "Verify with your wallet"}
            </Button>
            <Button variant="secondary" onClick={() => setPasting((v) => !v)} aria-expanded={pasting}>
              Sign in another wallet
            </Button>
          </div>
        )}
        {problem && <Notice tone="danger">{problem}</Notice>}
        {!readOnly && pasting && <PasteSignature onVerified={verified} />}
      </div>
    </Card>
  );
}
