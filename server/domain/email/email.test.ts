// Emails end to end in process, against a real SMTP server (tests/support/smtp.ts): a reward the
// rules core writes queues a digest that arrives once with the right recipient, subject, text,
// links and unsubscribe headers; later rewards gather in the next digest; the header's unsubscribe
// turns that kind off; without SMTP_URL messages are kept NOT_CONFIGURED; a hanging server ends
// an attempt by its timeout and the email is retried, then FAILED.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { runJob } from "../../../server/jobs/execute";
import { domainBusiness, participant, trackReferral, uniqueEmail } from "../../../tests/support/domain";
import type { ParsedMail } from "mailparser";
import { startHangingSmtp, startSmtpSink, type SmtpSink } from "../../../tests/support/smtp";
import { readUnsubscribeToken, unsubscribe, unsubscribeToken } from "./unsubscribe";
import { emitWebhookEvent } from "../webhooks/emit";
import { getEmail, requestPortalSignIn, updateNotifications } from "./service";
import { updateNotificationsInput } from "./schemas";
import { scheduleEmailDigests } from "./schedule";
import { eraseParticipant } from "../participants/privacy";

let sink: SmtpSink;
beforeAll(async () => {
  sink = await startSmtpSink();
});
afterAll(() => sink.close());
afterEach(() => {
  process.env.SMTP_URL = sink.url;
  delete process.env.SMTP_TIMEOUT_MS;
});

const emailsOf = (participantId: string) => db.email.findMany({ where: { participantId }, orderBy: { createdAt: "asc" } });
const send = (emailId: string) => runJob(`job_${emailId}`);
/** A header's raw value as it arrived (mailparser structures the List-* headers). */
const header = (m: ParsedMail, name: string) => m.headerLines.find((h) => h.key === name)?.line.replace(/^[^:]+:\s*/, "").replace(/\r?\n\s+/g, "");

async function referrerWithReward(name = "Ana <b>Bold</b>\r\nBcc: evil@example.com") {
  const { scope, businessId } = await domainBusiness({ referralRewardEth: "0.0123456789", fundEth: "1" });
  const to = uniqueEmail("referrer");
  const p = await participant(scope, { email: to, name });
  const r = await trackReferral(scope, p.referralCode);
  expect(r.status).toBeLessThan(300);
  return { scope, businessId, p, to };
}

describe("email", () => {
  it("a reward queues a digest that arrives once, with the unsubscribe headers, and later rewards gather in the next one", async () => {
    process.env.SMTP_URL = sink.url;
    const { scope, p, to } = await referrerWithReward();
    const [digest] = await emailsOf(p.participantId);
    expect(digest).toMatchObject({ kind: "REWARD_EARNED", status: "QUEUED", to });
    const before = sink.messages.length;
    expect((await send(digest.id)).status).toBe("SUCCEEDED");
    const [m] = (await sink.waitFor(before + 1)).slice(before);
    expect((m.to as { value: { address: string }[] }).value[0].address).toBe(to);
    expect(m.subject).toBe("[TEST] You earned 0.01235 ETH from Domain test");
    expect(m.text).toContain("You earned 0.01235 ETH from Domain test.");
    expect(m.html).toContain("Ana &lt;b&gt;Bold&lt;/b&gt;");
    expect(m.headers.get("bcc")).toBeUndefined();
    expect(m.messageId).toBe(`<${digest.id}@127.0.0.1>`);
    const unsub = String(header(m, "list-unsubscribe"));
    expect(unsub).toMatch(/^<http:\/\/127\.0\.0\.1:\d+\/email\/unsubscribe\?token=/);
    expect(header(m, "list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click");
    expect(await db.email.findUnique({ where: { id: digest.id } })).toMatchObject({ status: "SENT", attempts: 1 });
    // A second run of the same job sends nothing more.
    expect((await send(digest.id)).status).toBe("SUCCEEDED");

    // Two more rewards within the hour: one digest, due an hour after the first gathered.
    await trackReferral(scope, p.referralCode);
    await trackReferral(scope, p.referralCode);
    const next = (await emailsOf(p.participantId)).filter((e) => e.id !== digest.id);
    expect(next).toHaveLength(1);
    expect(next[0].sendAt.getTime() - digest.sendAt.getTime()).toBeGreaterThanOrEqual(3_599_000);
    expect((await send(next[0].id)).status).toBe("NOT_DUE");
    await db.job.update({ where: { id: `job_${next[0].id}` }, data: { runAt: new Date() } });
    expect((await send(next[0].id)).status).toBe("SUCCEEDED");
    const [m2] = (await sink.waitFor(before + 2)).slice(before + 1);
    expect(m2.subject).toBe("[TEST] You earned 0.02469 ETH from Domain test");
    expect(m2.text).toContain("in 2 rewards");
    expect(sink.messages.length).toBe(before + 2);

    // The header's token unsubscribes from that kind: the next digest is not even written.
    const token = new URL(unsub.slice(1, -1)).searchParams.get("token")!;
    const t = readUnsubscribeToken(token)!;
    expect(t).toEqual({ participantId: p.participantId, kind: "REWARD_EARNED" });
    expect(await unsubscribe(t)).toEqual({ businessName: "Domain test" });
    expect(await unsubscribe(t)).toEqual({ businessName: "Domain test" });
    await trackReferral(scope, p.referralCode);
    expect(await emailsOf(p.participantId)).toHaveLength(2);
  });

  it("WALLET_MISSING goes to a referrer owed a payout with no wallet, at most once a week", async () => {
    const { p } = await referrerWithReward("Wy");
    await scheduleEmailDigests();
    await scheduleEmailDigests();
    const missing = (await emailsOf(p.participantId)).filter((e) => e.kind === "WALLET_MISSING");
    expect(missing).toHaveLength(1);
    expect(missing[0]).toMatchObject({ status: "QUEUED", data: { amountEth: "0.0123456789" } });
  });

  it("erasing a participant scrubs their emails from the log, and a queued one is not sent", async () => {
    process.env.SMTP_URL = sink.url;
    const { businessId, p, to } = await referrerWithReward("Erin Erased");
    const [queued] = await emailsOf(p.participantId);
    await eraseParticipant(businessId, p.participantId);
    const kept = await db.email.findUniqueOrThrow({ where: { id: queued.id } });
    expect(kept.to).not.toContain(to);
    const before = sink.messages.length;
    expect((await send(queued.id)).status).toBe("SUCCEEDED");
    expect(await db.email.findUniqueOrThrow({ where: { id: queued.id } })).toMatchObject({ status: "SUPPRESSED", error: "The participant was erased or has no email" });
    expect(sink.messages.length).toBe(before);
  });

  it("the run that takes the pool below its threshold emails the members who want LOW_POOL, with the alert", async () => {
    const { scope, businessId } = await domainBusiness({ referralRewardEth: "0.4", fundEth: "1", spend: { lowPoolAlertEth: "0.5" } });
    const staff = async (tag: string, off: string[]) => {
      const id = `u-${tag}-${Date.now()}-${Math.random().toString(36).slice(2)}`;
      const email = uniqueEmail(tag);
      await db.user.create({ data: { id, name: tag, email } });
      await db.member.create({ data: { businessId, userId: id, email, role: "ADMIN", notificationsOff: off } });
      return email;
    };
    const wants = await staff("wants", []);
    const declines = await staff("declines", ["LOW_POOL"]);
    const p = await participant(scope, { email: uniqueEmail("r") });
    await trackReferral(scope, p.referralCode);
    await trackReferral(scope, p.referralCode);
    const low = await db.email.findMany({ where: { businessId, kind: "LOW_POOL" } });
    expect(low.map((e) => e.to)).toEqual([wants]);
    expect(low.map((e) => e.to)).not.toContain(declines);
    expect(low[0].data).toMatchObject({ thresholdEth: "0.5" });
  });

  it("an unsubscribe token cannot be forged or moved to another participant or kind", async () => {
    const good = unsubscribeToken("p1", "PAYOUT_SENT");
    expect(readUnsubscribeToken(good)).toEqual({ participantId: "p1", kind: "PAYOUT_SENT" });
    const [, , sig] = good.split(".");
    expect(readUnsubscribeToken(`p2.PAYOUT_SENT.${sig}`)).toBeNull();
    expect(readUnsubscribeToken(`p1.REWARD_EARNED.${sig}`)).toBeNull();
    expect(readUnsubscribeToken(`${good}x`)).toBeNull();
    expect(readUnsubscribeToken("p1.PORTAL_SIGN_IN.x")).toBeNull();
  });

  it("a kind the business turned off is kept SUPPRESSED with the reason; without SMTP_URL an email is NOT_CONFIGURED", async () => {
    const { scope, businessId, p } = await referrerWithReward("Bo");
    await updateNotifications(businessId, updateNotificationsInput.parse({ environment: "TEST", referrer: { REWARD_REVERSED: false } }));
    await db.$transaction((tx) =>
      emitWebhookEvent(tx, [
        { businessId, environment: scope.environment, type: "reward.reversed", data: { participantId: p.participantId, rewardId: "r1", amountEth: "0.01" } },
        { businessId, environment: scope.environment, type: "payout.failed", data: { participantId: p.participantId, payoutId: "po1", amountEth: "0.5", walletAddress: "0xabc", error: "the wallet refused the transfer\r\nX-Evil: 1" } },
      ]),
    );
    const all = await emailsOf(p.participantId);
    expect(all.find((e) => e.kind === "REWARD_REVERSED")).toMatchObject({ status: "SUPPRESSED", error: "The business turned this email off" });
    const failed = all.find((e) => e.kind === "PAYOUT_FAILED")!;
    delete process.env.SMTP_URL;
    expect((await send(failed.id)).status).toBe("SUCCEEDED");
    const kept = await db.email.findUniqueOrThrow({ where: { id: failed.id } });
    expect(kept.status).toBe("NOT_CONFIGURED");
    expect(kept.subject).toBe("[TEST] A payout from Domain test failed");
    expect(kept.text).toContain("could not send you 0.5 ETH: the wallet refused the transfer X-Evil: 1.");
    expect(kept.text).toContain("/portal/sign-in?business=");
  });

  it("without SMTP_URL nothing is queued to send: emails are kept NOT_CONFIGURED at once (one earned-reward email per participant and hour) and read rendered", async () => {
    delete process.env.SMTP_URL;
    const { scope, p } = await referrerWithReward("Di");
    await trackReferral(scope, p.referralCode);
    const kept = await emailsOf(p.participantId);
    expect(kept.map((e) => [e.kind, e.status])).toEqual([["REWARD_EARNED", "NOT_CONFIGURED"]]);
    expect(await db.job.count({ where: { type: "EMAIL_SEND", businessId: scope.businessId } })).toBe(0);
    const read = await getEmail(scope.businessId, kept[0].id);
    expect(read.subject).toMatch(/^\[TEST\] You earned 0\.02469 ETH from /);
    expect(read.html).toContain("0.01235");
    expect(read.text).toContain("Di");
  });

  it("sign-in by email: a link for a participant, nothing for a stranger, at most 3 an hour", async () => {
    process.env.SMTP_URL = sink.url;
    const { businessId, p, to } = await referrerWithReward("Cy");
    await requestPortalSignIn({ businessId, email: uniqueEmail("stranger") });
    for (let i = 0; i < 5; i++) await requestPortalSignIn({ businessId, email: to });
    const signIns = (await emailsOf(p.participantId)).filter((e) => e.kind === "PORTAL_SIGN_IN");
    expect(signIns).toHaveLength(3);
    const before = sink.messages.length;
    expect((await send(signIns[0].id)).status).toBe("SUCCEEDED");
    const [m] = (await sink.waitFor(before + 1)).slice(before);
    expect(m.text).toMatch(/\/portal\/open\?token=pt_test_[0-9A-Za-z]{43}/);
    expect(header(m, "list-unsubscribe")).toBeUndefined();
    // The stored copy never holds the link.
    expect((await db.email.findUniqueOrThrow({ where: { id: signIns[0].id } })).text).not.toContain("token=");
  });

  it("a hanging SMTP server ends an attempt by its timeout; the email is retried, then FAILED", async () => {
    const hanging = await startHangingSmtp();
    try {
      process.env.SMTP_URL = hanging.url;
      process.env.SMTP_TIMEOUT_MS = "500";
      const { p } = await referrerWithReward("Di");
      const [e] = await emailsOf(p.participantId);
      await db.job.update({ where: { id: `job_${e.id}` }, data: { maxAttempts: 2 } });
      const started = Date.now();
      expect((await send(e.id)).status).toBe("RETRY");
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(await db.email.findUniqueOrThrow({ where: { id: e.id } })).toMatchObject({ status: "QUEUED", attempts: 1 });
      await db.job.update({ where: { id: `job_${e.id}` }, data: { runAt: new Date() } });
      expect((await send(e.id)).status).toBe("FAILED");
      const failed = await db.email.findUniqueOrThrow({ where: { id: e.id } });
      expect(failed).toMatchObject({ status: "FAILED", attempts: 2 });
      expect(failed.error).toMatch(/greeting never received|timeout/i);
    } finally {
      await hanging.close();
    }
  });
});
