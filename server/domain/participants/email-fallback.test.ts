// POST /sdk/participants with a userId no one has and someone's email: never that someone.
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { testBusiness } from "../../../tests/support/jobs-fixtures";
import { upsertParticipant } from "./service";

const WALLET_A = "0x1111111111111111111111111111111111111111";
const WALLET_M = "0x2222222222222222222222222222222222222222";

describe("upsertParticipant: email fallback", () => {
  it("a new userId with another participant's email is a 409 CONFLICT; nothing changes", async () => {
    const scope = await testBusiness();
    const alice = await upsertParticipant(scope, { userId: "alice", email: "alice@example.com", walletAddress: WALLET_A });
    await expect(upsertParticipant(scope, { userId: "mallory", email: "alice@example.com", walletAddress: WALLET_M })).rejects.toMatchObject({ code: "CONFLICT" });
    await expect(upsertParticipant(scope, { userId: "mallory", email: "alice@example.com" })).rejects.toMatchObject({ code: "CONFLICT" });
    expect(await db.participant.findUniqueOrThrow({ where: { id: alice.participantId } })).toMatchObject({ externalId: "alice", walletAddress: WALLET_A });
    expect(await db.participant.count({ where: { businessId: scope.businessId } })).toBe(1);
    // Alice herself (by userId) still updates her own wallet.
    expect(await upsertParticipant(scope, { userId: "alice", email: "alice@example.com", walletAddress: WALLET_M })).toMatchObject({ walletAddress: WALLET_M, created: false });
  });

  it("a participant known only by email takes the userId, but its wallet never changes through the email", async () => {
    const scope = await testBusiness();
    const bob = await upsertParticipant(scope, { email: "bob@example.com", walletAddress: WALLET_A });
    await expect(upsertParticipant(scope, { userId: "bob-1", email: "bob@example.com", walletAddress: WALLET_M })).rejects.toMatchObject({ code: "CONFLICT" });
    expect(await db.participant.findUniqueOrThrow({ where: { id: bob.participantId } })).toMatchObject({ externalId: null, walletAddress: WALLET_A });
    expect(await upsertParticipant(scope, { userId: "bob-1", email: "bob@example.com" })).toMatchObject({ participantId: bob.participantId, userId: "bob-1", walletAddress: WALLET_A });
    expect(await upsertParticipant(scope, { userId: "bob-1", walletAddress: WALLET_M })).toMatchObject({ participantId: bob.participantId, walletAddress: WALLET_M });
  });
});
