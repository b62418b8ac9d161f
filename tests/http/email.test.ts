// Email over HTTP against the production build, with its own app pointed at a real SMTP server
// (tests/support/smtp.ts): a reward arrives once as an email to the referrer, whose
// List-Unsubscribe link turns that kind off (POST, 200, idempotent; GET shows the choice); the
// log and its detail, settings and each member's choices with their roles and ownership; sign-in
// by email answers 202 alike for strangers and emails a single-use portal link; the dashboard's
// portal links.
import type { ParsedMail } from "mailparser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../support/app";
import { request, signUp, uniqueEmail, type Owner } from "../support/http";
import { startHangingSmtp, startSmtpSink, type SmtpSink } from "../support/smtp";
import { startReceiver } from "../support/webhook-receiver";
import { participant, rewardsBusiness, trackReferral } from "./rewards-helpers";

let sink: SmtpSink;
let app: RunningApp;
beforeAll(async () => {
  sink = await startSmtpSink();
  app = await startApp({ SMTP_URL: sink.url, EMAIL_FROM: "Referrals <rewards@example.com>" });
});
afterAll(async () => {
  await app?.stop();
  await sink?.close();
});

/** Invites a member into the owner's business on this test's app and signs them up through the link. */
async function addMember(owner: Owner, role: "MEMBER" | "ADMIN" = "MEMBER") {
  const email = uniqueEmail("member");
  const r = await owner.call("POST", "/business/members", { email, role });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return signUp({ url: app.url, email, inviteUrl: r.body.inviteUrl });
}

const header = (m: ParsedMail, name: string) => m.headerLines.find((h) => h.key === name)?.line.replace(/^[^:]+:\s*/, "").replace(/\r?\n\s+/g, "");
const addressOf = (m: ParsedMail) => (m.to as { value: { address: string }[] }).value[0].address;

async function mailTo(address: string, n = 1, ms = 30_000): Promise<ParsedMail[]> {
  const end = Date.now() + ms;
  for (;;) {
    const got = sink.messages.filter((m) => addressOf(m) === address);
    if (got.length >= n) return got;
    if (Date.now() > end) throw new Error(`${address}: ${got.length} of ${n} emails\n${app.logs().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("email over HTTP", () => {
  it("a reward's email arrives once; its List-Unsubscribe link turns that kind off; the log shows it to its business only", async () => {
    const { owner, secret } = await rewardsBusiness({ url: app.url, referralRewardEth: "0.01", fundEth: "1" });
    const to = uniqueEmail("referrer");
    const p = await participant(secret, { email: to, name: "Eve\r\nBcc: x@example.com" }, app.url);
    expect((await trackReferral(secret, p.referralCode, { url: app.url })).status).toBeLessThan(300);
    const [m] = await mailTo(to);
    expect(m.subject).toBe("[TEST] You earned 0.01 ETH from Acme Test");
    expect(m.text).toContain("You earned 0.01 ETH from Acme Test.");
    expect(m.from?.value[0].address).toBe("rewards@example.com");
    expect(m.headers.get("bcc")).toBeUndefined();
    expect(header(m, "list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click");
    const unsub = header(m, "list-unsubscribe")!.slice(1, -1);
    expect(unsub.startsWith(`${app.url}/email/unsubscribe?token=`)).toBe(true);

    const page = await fetch(unsub);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("<form method=\"post\"");
    for (let i = 0; i < 2; i++) {
      const r = await fetch(unsub, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "List-Unsubscribe=One-Click" });
      expect(r.status).toBe(200);
    }
    const forged = await fetch(unsub.replace(/token=[^.]+/, "token=someone-else"), { method: "POST" });
    expect(forged.status).toBe(400);
    expect((await forged.json()).error.code).toBe("VALIDATION_ERROR");

    const list = await owner.call("GET", `/business/emails?environment=TEST&kind=REWARD_EARNED&to=${encodeURIComponent(to)}`);
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(list.body.data).toHaveLength(1);
    const row = list.body.data[0];
    expect(row).toMatchObject({ kind: "REWARD_EARNED", to, status: "SENT", attempts: 1, error: null });
    const one = await owner.call("GET", `/business/emails/${row.emailId}`);
    expect(one.status).toBe(200);
    expect(one.body.html).toContain("Eve Bcc: x@example.com");
    expect(one.body.text).toContain("0.01 ETH");
    const stranger = await signUp({ url: app.url });
    expect((await stranger.call("GET", `/business/emails/${row.emailId}`)).status).toBe(404);
    expect((await stranger.call("GET", "/business/emails?environment=TEST")).body.data).toEqual([]);
    expect((await request(app.url, "GET", "/business/emails")).status).toBe(401);
    expect((await owner.call("GET", "/business/emails?status=LOST")).status).toBe(400);
    expect((await owner.call("GET", "/business/emails?cursor=nope")).status).toBe(400);

    // Unsubscribed: the next reward writes no email.
    await trackReferral(secret, p.referralCode, { url: app.url });
    const after = await owner.call("GET", `/business/emails?environment=TEST&kind=REWARD_EARNED&to=${encodeURIComponent(to)}`);
    expect(after.body.data).toHaveLength(1);
  });

  it("settings: members read, owners and admins write; each member's own choices; bad input is 400 and changes nothing", async () => {
    const owner = await signUp({ url: app.url });
    const got = await owner.call("GET", "/business/notifications?environment=TEST");
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ environment: "TEST", referrer: { REWARD_EARNED: true, PAYOUT_SENT: true, PAYOUT_FAILED: true, WALLET_MISSING: true, REWARD_REVERSED: true }, fromName: null, replyTo: null });
    const set = await owner.call("PATCH", "/business/notifications", { environment: "TEST", referrer: { PAYOUT_SENT: false }, fromName: "Acme Rewards", replyTo: "Help@Example.com" });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({ referrer: { PAYOUT_SENT: false, REWARD_EARNED: true }, fromName: "Acme Rewards", replyTo: "help@example.com" });
    for (const bad of [{ environment: "TEST", fromName: "A\r\nBcc: x@example.com" }, { environment: "TEST", replyTo: "not-an-email" }, { environment: "TEST", referrer: { PORTAL_SIGN_IN: false } }, { environment: "NOPE" }]) {
      const r = await owner.call("PATCH", "/business/notifications", bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(r.body.error.code).toBe("VALIDATION_ERROR");
    }
    expect((await owner.call("GET", "/business/notifications?environment=TEST")).body).toEqual(set.body);
    expect((await owner.call("GET", "/business/notifications?environment=LIVE")).body.referrer.PAYOUT_SENT).toBe(true);

    const admin = await addMember(owner, "ADMIN");
    expect((await admin.call("PATCH", "/business/notifications", { environment: "TEST", fromName: "Acme Rewards" })).status).toBe(200);
    const member = await addMember(owner);
    expect((await member.call("GET", "/business/notifications?environment=TEST")).body).toEqual(set.body);
    expect((await member.call("PATCH", "/business/notifications", { environment: "TEST", fromName: "x" })).status).toBe(403);
    const mine = await member.call("PATCH", "/business/members/me/notifications", { LOW_POOL: false });
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual({ LOW_POOL: false, REVIEW_QUEUE: true, PAYOUT_RUN_FAILED: true, WEBHOOK_DISABLED: true, STRIPE_FAILED: true });
    expect((await owner.call("GET", "/business/members/me/notifications")).body.LOW_POOL).toBe(true);
    expect((await member.call("PATCH", "/business/members/me/notifications", { LOW_POOL: "no" })).status).toBe(400);
  });

  it("sign-in by email: 202 alike for a stranger; the referrer gets a link that opens their portal once", async () => {
    const { owner, secret } = await rewardsBusiness({ url: app.url });
    const to = uniqueEmail("signin");
    const p = await participant(secret, { email: to }, app.url);
    const me = await owner.call("GET", "/business/me");
    const businessId = me.body.business.businessId as string;
    const known = await request(app.url, "POST", "/portal/api/sign-in", { businessId, email: to.toUpperCase() });
    const unknown = await request(app.url, "POST", "/portal/api/sign-in", { businessId, email: uniqueEmail("nobody") });
    const nobiz = await request(app.url, "POST", "/portal/api/sign-in", { businessId: "no-such-business", email: to });
    expect([known.status, unknown.status, nobiz.status]).toEqual([202, 202, 202]);
    expect(unknown.body).toEqual(known.body);
    expect(nobiz.body).toEqual(known.body);
    expect((await request(app.url, "POST", "/portal/api/sign-in", { businessId, email: "x" })).status).toBe(400);

    const [m] = await mailTo(to);
    expect(m.subject).toBe("[TEST] Your link to Acme Test's referral portal");
    const link = /http:\/\/127\.0\.0\.1:\d+\/portal\/open\?token=pt_test_[0-9A-Za-z]{43}/.exec(m.text ?? "")![0];
    const open = await fetch(link, { redirect: "manual" });
    expect(open.status).toBe(303);
    expect(open.headers.get("set-cookie")).toMatch(/pt_test_/);
    const again = await fetch(link, { redirect: "manual" });
    expect(again.headers.get("set-cookie")).not.toMatch(/pt_test_/);
    // The log's copy never holds the link.
    const logged = (await owner.call("GET", `/business/emails?environment=TEST&kind=PORTAL_SIGN_IN&to=${encodeURIComponent(to)}`)).body.data[0];
    const copy0 = await owner.call("GET", `/business/emails/${logged.emailId}`);
    expect(copy0.body.text).toContain("[the one-time link, not kept]");
    expect(JSON.stringify(copy0.body)).not.toMatch(/pt_test_|__PORTAL_LINK__/);

    // The dashboard's links: a fresh one to copy (owner), or the same by email (any member).
    const copy = await owner.call("POST", `/business/participants/${p.participantId}/portal-link`);
    expect(copy.status, JSON.stringify(copy.body)).toBe(200);
    expect(copy.body.url).toMatch(/\/portal\/open\?token=pt_test_/);
    expect(Date.parse(copy.body.expiresAt)).toBeGreaterThan(Date.now());
    const member = await addMember(owner);
    expect((await member.call("POST", `/business/participants/${p.participantId}/portal-link`)).status).toBe(403);
    const mailed = await member.call("POST", `/business/participants/${p.participantId}/portal-link/email`);
    expect(mailed.status, JSON.stringify(mailed.body)).toBe(200);
    await mailTo(to, 2);
    const stranger = await signUp({ url: app.url });
    expect((await stranger.call("POST", `/business/participants/${p.participantId}/portal-link`)).status).toBe(404);
    expect((await stranger.call("POST", `/business/participants/${p.participantId}/portal-link/email`)).status).toBe(404);
  });
});

describe("an SMTP server that hangs", () => {
  it("holds up neither events nor webhooks: they are done while the email still waits for the server", async () => {
    const hanging = await startHangingSmtp();
    const rx = await startReceiver();
    const slow = await startApp({ SMTP_URL: hanging.url, SMTP_TIMEOUT_MS: "60000" });
    try {
      const { owner, secret } = await rewardsBusiness({ url: slow.url, referralRewardEth: "0.01", fundEth: "1", general: { eventProcessing: "ASYNC" } });
      const hook = await owner.call("POST", "/business/webhooks", { url: `${rx.url}/hanging`, environment: "TEST", events: ["reward.created"] });
      expect(hook.status, JSON.stringify(hook.body)).toBe(200);
      const to = uniqueEmail("waiting");
      const p = await participant(secret, { email: to }, slow.url);
      // Several referrals, each a reward and an email that waits for the server.
      for (let i = 0; i < 3; i++) expect((await trackReferral(secret, p.referralCode, { url: slow.url })).status).toBeLessThan(300);
      const started = Date.now();
      for (;;) {
        const events = await owner.call("GET", "/business/events?environment=TEST");
        const delivered = rx.received.filter((r) => r.path === "/hanging").length;
        if (events.body.data.length === 3 && events.body.data.every((e: { status: string }) => e.status !== "QUEUED") && delivered >= 1) break;
        if (Date.now() - started > 30_000) throw new Error(`events or webhooks held up: ${JSON.stringify(events.body.data.map((e: { status: string }) => e.status))}, ${delivered} deliveries`);
        await new Promise((r) => setTimeout(r, 200));
      }
      const emails = await owner.call("GET", `/business/emails?environment=TEST&to=${encodeURIComponent(to)}`);
      expect(emails.body.data.length).toBeGreaterThan(0);
      expect(emails.body.data.every((e: { status: string; sentAt: string | null }) => e.status === "QUEUED" && e.sentAt === null)).toBe(true);
      // The first digest's job is running: its attempt waits on the server, in the email pool only
      // (the rewards after it gather in the next digest, due an hour after it).
      const first = emails.body.data[emails.body.data.length - 1];
      const job = await request(slow.url, "GET", `/sdk/jobs/job_${first.emailId}`, undefined, { "x-api-key": secret });
      expect(job.status, JSON.stringify(job.body)).toBe(200);
      expect(job.body).toMatchObject({ jobType: "EMAIL_SEND", status: "RUNNING" });
    } finally {
      await slow.kill();
      await slow.stop();
      await rx.close();
      await hanging.close();
    }
  });
});
