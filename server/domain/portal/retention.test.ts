// The retention sweep deletes the portal's short-lived rows in bounded batches: wallet challenges
// once expired (used or not), portal sessions a day after they ended, and a session that kept its
// opening device's visitor hash only once raw clicks of that age are gone (SAME_VISITOR reads it).
// Live challenges and sessions, and sessions ended less than a day ago, stay.
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { sweepRetention } from "../../jobs/retention";
import { domainBusiness, participant } from "../../../tests/support/domain";
import { randomBase62, sha256Hex } from "../../shared/ids";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe("portal retention", () => {
  it("deletes expired wallet challenges and ended portal sessions, bounded per sweep, and nothing else", async () => {
    const b = await domainBusiness();
    const { participantId } = await participant(b.scope);
    const now = Date.now();
    const challenge = (expiresInMs: number, used = false) =>
      db.walletChallenge
        .create({ data: { nonce: randomBase62(17), participantId, address: "0x0000000000000000000000000000000000000001", chainId: 31337, expiresAt: new Date(now + expiresInMs), createdAt: new Date(now + expiresInMs - 600_000), usedAt: used ? new Date(now + expiresInMs - 300_000) : null } })
        .then((c) => c.nonce);
    const session = (endedMsAgo: number, visitorHash: string | null = null) =>
      db.portalSession
        .create({ data: { tokenHash: sha256Hex(randomBase62(20)), businessId: b.businessId, environment: "TEST", participantId, apiKeyId: b.scope.apiKeyId!, expiresAt: new Date(now - endedMsAgo), createdAt: new Date(now - endedMsAgo - HOUR), visitorHash } })
        .then((s) => s.id);

    const expiredChallenges = [await challenge(-60_000), await challenge(-60_000, true), await challenge(-DAY)];
    const liveChallenges = [await challenge(300_000), await challenge(300_000, true)];
    const endedSessions = [await session(2 * DAY), await session(1.5 * DAY), await session(30 * DAY)];
    const keptSessions = [await session(-HOUR), await session(20 * HOUR)]; // live; ended less than a day ago
    const seen = await session(3 * DAY, "a".repeat(32)); // its device's hash: kept while clicks of its age are

    // Bounded: two rows per statement, one statement per table in this sweep; the next one goes on.
    const first = await sweepRetention({ batchSize: 2, maxBatches: 1 });
    expect(first).toMatchObject({ walletChallengesDeleted: 2, portalSessionsDeleted: 2, more: true });
    const second = await sweepRetention({ batchSize: 2, maxBatches: 1 });
    expect(second).toMatchObject({ walletChallengesDeleted: 1, portalSessionsDeleted: 1, more: false });

    expect(await db.walletChallenge.count({ where: { nonce: { in: expiredChallenges } } })).toBe(0);
    expect(await db.walletChallenge.count({ where: { nonce: { in: liveChallenges } } })).toBe(liveChallenges.length);
    expect(await db.portalSession.count({ where: { id: { in: endedSessions } } })).toBe(0);
    expect(await db.portalSession.count({ where: { id: { in: [...keptSessions, seen] } } })).toBe(keptSessions.length + 1);

    // With clicks kept two days, the session seen three days ago goes too.
    expect(await sweepRetention({ clickRetentionDays: 2 })).toMatchObject({ portalSessionsDeleted: 1, walletChallengesDeleted: 0 });
    expect(await db.portalSession.count({ where: { id: seen } })).toBe(0);
    expect(await db.portalSession.count({ where: { id: { in: keptSessions } } })).toBe(keptSessions.length);
  });
});
