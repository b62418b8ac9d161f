// GET /proofs/:businessId/:environment/latest|:proofId opened in a browser: the published proof as
// a page anyone can read (what it states, whether the pool covered what is owed, and how to check
// it without trusting this service). Clients that ask for JSON get the proof itself (proofs.ts).
import { randomBytes } from "node:crypto";
import type { ProofOutput } from "../../domain/trust/schemas";
import { env } from "../../shared/env";
import { amountText } from "../../shared/asset";

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A browser asks for HTML first; fetch, curl and the SDK do not. */
export const wantsHtml = (req: Request) => /\btext\/html\b/.test(req.headers.get("accept") ?? "");

const STYLE = `body{margin:0;font:15px/1.5 system-ui,sans-serif;color:#0f172a;background:#f8fafc}main{max-width:52rem;margin:0 auto;padding:24px 16px;overflow-wrap:anywhere}a,code{word-break:break-all}
h1{font-size:1.5rem;margin:0 0 4px}h2{font-size:1.1rem;margin:28px 0 8px}p{margin:8px 0;color:#334155}
.status{display:inline-block;margin:8px 0;padding:4px 10px;border-radius:999px;font-weight:600}.ok{background:#dcfce7;color:#14532d}.short{background:#fee2e2;color:#7f1d1d}
dl{display:grid;grid-template-columns:minmax(9rem,max-content) 1fr;gap:6px 16px;margin:12px 0;background:#fff;border:1px solid #cbd5e1;border-radius:12px;padding:16px}
dt{color:#475569}dd{margin:0;font-weight:600;overflow-wrap:anywhere}.mono{font-family:ui-monospace,monospace;font-weight:400;font-size:13px}
pre{background:#0f172a;color:#f8fafc;padding:12px;border-radius:8px;white-space:pre-wrap;overflow-wrap:anywhere;font-size:13px}ol{padding-left:1.25rem}a{color:#3730a3}
@media (max-width:480px){dl{grid-template-columns:1fr}dd{margin-bottom:6px}}`;

export function renderProofPage(req: Request, proof: ProofOutput, businessName: string, headers: Record<string, string>): Response {
  const nonce = randomBytes(16).toString("base64");
  // The public address (APP_URL), not the host this instance was reached at behind a proxy.
  const self = `${env.appUrl}${new URL(req.url).pathname}`;
  const name = businessName || "This business";
  // The proof states base units of its asset (proof.asset), shown with its symbol.
  const eth = (units: string) => amountText(units, proof.asset);
  const row = (k: string, v: string, mono = false) => `<dt>${esc(k)}</dt><dd${mono ? ' class="mono"' : ""}>${esc(v)}</dd>`;
  const body = `<main>
<h1>${esc(name)}: proof of liabilities</h1>
<p>${esc(proof.environment === "TEST" ? "Test environment" : "Live environment")}, published ${esc(proof.createdAt.replace("T", " ").replace(/\.\d+Z$/, " UTC"))}.</p>
<p class="status ${proof.covered ? "ok" : "short"}" data-testid="proof-status">${proof.covered ? "Covered: the pool held at least what is owed" : "Not covered: the pool held less than what is owed"}</p>
<dl>
${row("Owed to participants", eth(proof.totalOwedWei))}
${row("Pool balance", eth(proof.poolBalanceWei))}
${row("Participants", String(proof.participants))}
${row("At block", `${proof.blockNumber} (chain ${proof.chainId})`)}
${row("Published because", { MANUAL: "the business asked", PAYOUT: "a payout run", DAILY: "the daily schedule" }[proof.reason])}
${row("Merkle root", proof.root, true)}
${row("Signed by (deposit address)", proof.signer, true)}
${row("Ledger entries", String(proof.ledgerEntries))}
${row("Ledger head", proof.ledgerHead ?? "none (empty ledger)", true)}
${row("Proof id", proof.proofId, true)}
</dl>
<h2>How to check it</h2>
<ol>
<li>Read the pool's balance yourself: the address above at block ${proof.blockNumber}, from any node of chain ${proof.chainId}.</li>
<li>If you are a participant, get your leaf and path from your referral portal (<code>GET /portal/api/proof</code>), then check them with the SDK:</li>
</ol>
<pre><code>import { verifyLiabilityProof } from "@referral-tracking/sdk";
const proof = await (await fetch("${esc(self)}", { headers: { accept: "application/json" } })).json();
const verdict = await verifyLiabilityProof({ proof, leaf, path, rpcUrl, expectedSigner: proof.signer });</code></pre>
<p>The same address answers this proof as JSON to any client that does not ask for HTML: <a href="${esc(self)}">${esc(self)}</a>.</p>
<p>A proof shows what the books owed at one block and that the deposit address held it then; each participant can check that their own amount is included.</p>
</main>`;
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(name)}: proof of liabilities</title><style nonce="${nonce}">${STYLE}</style></head><body>${body}</body></html>`;
  return new Response(html, {
    headers: {
      ...headers,
      "Content-Type": "text/html; charset=utf-8",
      "Content-Security-Policy": `default-src 'none'; style-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
      "X-Content-Type-Options": "nosniff",
    },
  });
}
