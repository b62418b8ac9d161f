// GET /portal/embed?token=…: a compact widget for an iframe on the business's site: the share
// link, earnings and tier progress. Framing is allowed for the business's portal origins only
// (CSP frame-ancestors); every other portal page refuses all framing (next.config.mjs). The
// token may come in the query because a cross-site iframe does not send the SameSite=Lax cookie.
import { randomBytes } from "node:crypto";
import { displayPrice } from "../domain/commissions/pricing";
import { portalOrigins } from "../domain/portal/origins";
import { portalMe } from "../domain/portal/read";
import { authenticatePortalToken } from "../domain/portal/sessions";
import type { PortalMeOutput } from "../domain/portal/schemas";
import { countText, ethWithFiat, type DisplayPrice } from "../shared/display-money";
import { decimalText } from "../shared/money";
import { portalTokenOf } from "./auth";

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, body: string, nonce: string) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${esc(title)}</title>
<style nonce="${nonce}">body{margin:0;font:14px/1.45 system-ui,sans-serif;color:#0f172a;background:#fff}main{padding:12px}h1{font-size:15px;margin:0 0 8px}
.row{display:flex;flex-wrap:wrap;gap:8px;align-items:center}.link{font-family:ui-monospace,monospace;word-break:break-all;font-size:13px}
button{font:inherit;padding:4px 10px;border-radius:6px;border:1px solid #94a3b8;background:#fff;color:#0f172a;cursor:pointer}button:focus-visible{outline:2px solid #4338ca;outline-offset:2px}
dl{display:grid;grid-template-columns:repeat(auto-fit,minmax(90px,1fr));gap:6px;margin:10px 0}dt{font-size:12px;color:#475569}dd{margin:0;font-weight:600}
.bar{height:8px;background:#e2e8f0;border-radius:4px}.bar>div{height:8px;background:#4338ca;border-radius:4px}p{margin:6px 0;color:#334155}</style></head>
<body><main>${body}</main></body></html>`;
}

function widget(me: PortalMeOutput, price: DisplayPrice | null, nonce: string) {
  const e = me.earnings;
  // Amounts in the program's asset (the earnings' tag): "12.5 USDC".
  const symbol = e.asset.symbol;
  const eth = (v: string) => `<span title="${esc(decimalText(v))} ${esc(symbol)}">${esc(ethWithFiat(v, price, symbol))}</span>`;
  const share = me.shareUrl ?? me.referralCode;
  const t = me.tier;
  const from = t.current?.minReferrals ?? 0;
  const pct = t.next ? Math.min(100, Math.round(((t.qualifiedReferrals - from) / Math.max(1, t.next.minReferrals - from)) * 100)) : 100;
  const tier =
    t.current || t.next
      ? `<p>${t.current ? `Tier <strong>${esc(t.current.name)}</strong>. ` : ""}${t.next ? `${t.next.referralsToNext} more qualified referrals to reach <strong>${esc(t.next.name)}</strong>.` : ""}</p>
<div class="bar" role="progressbar" aria-label="Progress to the next tier" aria-valuemin="0" aria-valuemax="100" aria-valuenow="${pct}"><div></div></div><style nonce="${nonce}">.bar>div{width:${pct}%}</style>`
      : "";
  const rank = me.leaderboard?.yourRank ? `<p>You are number ${me.leaderboard.yourRank} of this month's referrers.</p>` : "";
  const body = `<h1>${esc(me.business.name)}: your referrals</h1>
<div class="row"><span class="link" id="share">${esc(share)}</span><button type="button" id="copy">Copy ${me.shareUrl ? "link" : "code"}</button><span role="status" id="copied"></span></div>
<dl><div><dt>Earned</dt><dd>${eth(e.earnedEth)}</dd></div><div><dt>On hold</dt><dd>${eth(e.onHoldEth)}</dd></div><div><dt>Payable</dt><dd>${eth(e.payableEth)}</dd></div><div><dt>Paid out</dt><dd>${eth(e.paidOutEth)}</dd></div></dl>
<p>${countText(me.clicks.clicks, "visit")} through your link, ${countText(me.referrals.total, "referral")}, ${me.referrals.qualified} qualified.</p>${tier}${rank}
<script nonce="${nonce}">document.getElementById("copy").addEventListener("click",function(){var t=document.getElementById("share").textContent;navigator.clipboard.writeText(t).then(function(){document.getElementById("copied").textContent="Copied"})});</script>`;
  return page(`${me.business.name}: your referrals`, body, nonce);
}

const csp = (nonce: string, ancestors: string[]) =>
  `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none'; frame-ancestors ${ancestors.length ? ancestors.join(" ") : "'none'"}`;

export async function renderEmbed(req: Request): Promise<Response> {
  const nonce = randomBytes(16).toString("base64");
  const url = new URL(req.url);
  const token = url.searchParams.get("token") ?? portalTokenOf(req.headers).token;
  const auth = await authenticatePortalToken(token);
  const headers = { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", "Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff" };
  if (!auth) {
    const body = page("Portal link expired", "<h1>This link has expired</h1><p>Reload the page you found it on to get a new one.</p>", nonce);
    return new Response(body, { status: 401, headers: { ...headers, "Content-Security-Policy": csp(nonce, []), "X-Frame-Options": "DENY" } });
  }
  const [me, origins, price] = await Promise.all([portalMe(auth), portalOrigins(auth.businessId, auth.environment), displayPrice(auth.businessId, auth.environment)]);
  return new Response(widget(me, price, nonce), { headers: { ...headers, "Content-Security-Policy": csp(nonce, origins) } });
}
