// A refused payout wallet stays refused when its participant signs the same wallet again in the
// portal (each run would pay for another failed transfer); a new wallet, or staff saving the same
// one, clears the refusal.
import { describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { testBusiness } from "../../../tests/support/jobs-fixtures";
import { upsertParticipant } from "../participants/service";
import { updateParticipantWallet } from "./wallet";

const A = "0x1111111111111111111111111111111111111111" as const;
const B = "0x2222222222222222222222222222222222222222" as const;
const refusal = { walletFailure: "WALLET_REFUSED: a transfer to it fails", walletFailedAt: new Date() };

describe("a refused payout wallet", () => {
  it("stays refused when signed again in the portal; a new wallet or staff clear it", async () => {
    const scope = await testBusiness();
    const p = await upsertParticipant(scope, { userId: "wallet-owner" });
    // The address first (a changed address clears a refusal: trigger), then its refusal.
    const failed = async () => {
      await db.participant.update({ where: { id: p.participantId }, data: { walletAddress: A } });
      await db.participant.update({ where: { id: p.participantId }, data: refusal });
    };
    const failure = async () => (await db.participant.findUniqueOrThrow({ where: { id: p.participantId } })).walletFailure;

    await failed();
    await updateParticipantWallet(scope.businessId, { participantId: p.participantId, walletAddress: A }, new Date());
    expect(await failure()).toBe(refusal.walletFailure);

    await updateParticipantWallet(scope.businessId, { participantId: p.participantId, walletAddress: B }, new Date());
    expect(await failure()).toBeNull();

    await failed();
    await updateParticipantWallet(scope.businessId, { participantId: p.participantId, walletAddress: A });
    expect(await failure()).toBeNull();
  });
});
