// Participant bookkeeping: find a referrer by code or handle, create or resolve a referred
// user, upsert for POST /sdk/participants. Every participant gets a referral code of its own.
// Inserts use ON CONFLICT DO NOTHING (createMany skipDuplicates) and re-read, because a unique
// violation inside a PostgreSQL transaction would abort the whole transaction.
import { db, type Tx } from "../../db/client";
import type { Participant } from "../../db/generated";
import { AppError } from "../../shared/errors";
import { isUniqueViolation } from "../../db/unique-violation";
import { pooledRandomBytes } from "../../shared/ids";
import type { Scope } from "../../shared/scope";
import type { ParticipantOutput, UpsertParticipantInput } from "./schemas";
import { assertPayoutWallet } from "./wallet-rules";

// No 0/O/1/I: codes are read aloud and typed by people.
const CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
const CODE_LENGTH = 8;

export function generateReferralCode(): string {
  let out = "";
  for (const b of pooledRandomBytes(CODE_LENGTH)) out += CODE_ALPHABET[b & 31];
  return out;
}

/** A referrer as sent in `referrer`/`referralCode`: its referral code (case-insensitive) or its handle. */
export async function findParticipantByCodeOrHandle(tx: Tx, scope: Scope, ref: string): Promise<Participant | null> {
  const value = ref.trim();
  if (!value || value.length > 64) return null;
  return tx.participant.findFirst({
    where: {
      businessId: scope.businessId,
      environment: scope.environment,
      OR: [{ referralCode: value.toUpperCase() }, { handle: value.toLowerCase() }],
    },
  });
}

/** A handle is one business's /r/ link across the installation (LinkHandle): another business cannot give it. */
const handleOfAnotherBusiness = (handle: string) =>
  new AppError("CONFLICT", `The handle "${handle}" is already another business's /r/ link on this installation: choose another`, [{ path: "handle", message: "used by another business's /r/ link" }]);

async function refuseHandleOfAnotherBusiness(tx: Tx, businessId: string, handle: string | undefined) {
  if (!handle) return;
  const link = await tx.linkHandle.findUnique({ where: { handle }, select: { businessId: true } });
  if (link && link.businessId !== businessId) throw handleOfAnotherBusiness(handle);
}

/** The database's own refusal (a race between the check above and the write), in the same words. */
const handleWrite = <T>(handle: string | undefined, write: Promise<T>): Promise<T> =>
  write.catch((e: unknown) => {
    if (handle && isUniqueViolation(e)) throw handleOfAnotherBusiness(handle);
    throw e;
  });

interface Identity {
  externalId?: string;
  email?: string;
  name?: string;
  handle?: string;
}

async function findByIdentity(tx: Tx, scope: Scope, who: Identity): Promise<Participant | null> {
  const base = { businessId: scope.businessId, environment: scope.environment };
  if (who.externalId) {
    const p = await tx.participant.findUnique({ where: { businessId_environment_externalId: { ...base, externalId: who.externalId } } });
    if (p) return p;
  }
  if (who.email) return tx.participant.findUnique({ where: { businessId_environment_email: { ...base, email: who.email } } });
  return null;
}

/**
 * The participant with this userId (else email), created with a fresh referral code when
 * missing. Missing fields of an existing participant are filled in; set ones are kept.
 */
async function ensureParticipant(tx: Tx, scope: Scope, who: Identity): Promise<{ participant: Participant; created: boolean }> {
  if (!who.externalId && !who.email) throw new AppError("VALIDATION_ERROR", "A participant needs a userId or an email");
  for (let attempt = 0; attempt < 5; attempt++) {
    const existing = await findByIdentity(tx, scope, who);
    if (existing) return { participant: await fillMissing(tx, existing, who), created: false };
    await refuseHandleOfAnotherBusiness(tx, scope.businessId, who.handle);
    const inserted = await handleWrite(who.handle, tx.participant.createManyAndReturn({
      data: [
        {
          businessId: scope.businessId,
          environment: scope.environment,
          externalId: who.externalId ?? null,
          email: who.email ?? null,
          name: who.name ?? null,
          handle: who.handle ?? null,
          referralCode: generateReferralCode(),
        },
      ],
      skipDuplicates: true,
    }));
    if (inserted.length === 1) return { participant: inserted[0], created: true };
    // Nothing inserted: a concurrent insert won the identity (re-read finds it), the handle is
    // taken, or, very rarely, the random code collided (retry with a new one).
    if (who.handle) {
      const owner = await tx.participant.findUnique({
        where: { businessId_environment_handle: { businessId: scope.businessId, environment: scope.environment, handle: who.handle } },
      });
      if (owner && !(await findByIdentity(tx, scope, who))) throw new AppError("CONFLICT", "This handle is taken by another participant", [{ path: "handle", message: "taken" }]);
    }
  }
  throw new AppError("CONFLICT", "Could not allocate a unique referral code; retry");
}

async function fillMissing(tx: Tx, p: Participant, who: Identity): Promise<Participant> {
  const data: Partial<Pick<Participant, "externalId" | "email" | "name" | "handle">> = {};
  if (who.name && who.name !== p.name) data.name = who.name;
  const keyed = [
    ["externalId", who.externalId, "businessId_environment_externalId"],
    ["email", who.email, "businessId_environment_email"],
    ["handle", who.handle, "businessId_environment_handle"],
  ] as const;
  for (const [field, value, unique] of keyed) {
    if (!value || p[field] === value) continue;
    if (p[field] && field !== "handle") continue; // identity fields are never overwritten
    const taken = await tx.participant.findUnique({
      where: { [unique]: { businessId: p.businessId, environment: p.environment, [field]: value } } as never,
    });
    if (taken && taken.id !== p.id) {
      if (field === "handle") throw new AppError("CONFLICT", "This handle is taken by another participant", [{ path: "handle", message: "taken" }]);
      continue;
    }
    data[field] = value;
  }
  if (Object.keys(data).length === 0) return p;
  await refuseHandleOfAnotherBusiness(tx, p.businessId, data.handle ?? undefined);
  return handleWrite(data.handle ?? undefined, tx.participant.update({ where: { id: p.id }, data }));
}

function toParticipantOutput(p: Participant, created: boolean): ParticipantOutput {
  return { participantId: p.id, referralCode: p.referralCode, handle: p.handle, userId: p.externalId, email: p.email, walletAddress: p.walletAddress, created };
}

/** A payout wallet set, changed or cleared: what the caller records (the SDK route: in the audit log). */
export interface WalletChange {
  participantId: string;
  before: { walletAddress: string | null; walletVerified: boolean };
  after: { walletAddress: string | null; walletVerified: boolean };
}

/**
 * POST /sdk/participants: upsert by userId, else email; returns the code the user shares.
 * `onWalletChange` runs in the transaction of a wallet change, so its record commits with it.
 */
export async function upsertParticipant(scope: Scope, input: UpsertParticipantInput, onWalletChange?: (tx: Tx, change: WalletChange) => Promise<void>): Promise<ParticipantOutput> {
  await assertPayoutWallet(scope.businessId, input.walletAddress);
  const { participant, created } = await db.$transaction(async (tx) => {
    await refuseEmailFallback(tx, scope, input);
    const out = await ensureParticipant(tx, scope, { externalId: input.userId, email: input.email, name: input.name, handle: input.handle });
    // The wallet is not an identity field: the integration's latest value wins (null clears it).
    if (input.walletAddress !== undefined && input.walletAddress !== out.participant.walletAddress) {
      const before = out.participant;
      out.participant = await tx.participant.update({ where: { id: out.participant.id }, data: { walletAddress: input.walletAddress } });
      const wallet = (p: Participant) => ({ walletAddress: p.walletAddress, walletVerified: p.walletVerified });
      await onWalletChange?.(tx, { participantId: before.id, before: wallet(before), after: wallet(out.participant) });
    }
    return out;
  });
  return toParticipantOutput(participant, created);
}

/**
 * A userId no participant has, sent with the email of an existing participant: that participant
 * is someone else when it has another userId (409), and its wallet is never changed through the
 * email (409); one known only by its email takes the userId, as ensureParticipant fills it in.
 */
async function refuseEmailFallback(tx: Tx, scope: Scope, input: UpsertParticipantInput): Promise<void> {
  if (!input.userId || !input.email) return;
  const base = { businessId: scope.businessId, environment: scope.environment };
  if (await tx.participant.findUnique({ where: { businessId_environment_externalId: { ...base, externalId: input.userId } }, select: { id: true } })) return;
  const byEmail = await tx.participant.findUnique({ where: { businessId_environment_email: { ...base, email: input.email } } });
  if (!byEmail) return;
  if (byEmail.externalId !== null) {
    throw new AppError("CONFLICT", "This email belongs to another participant (another userId); send that participant's userId", [{ path: "email", message: "belongs to another participant" }]);
  }
  if (input.walletAddress !== undefined && byEmail.walletAddress !== null && input.walletAddress !== byEmail.walletAddress) {
    throw new AppError("CONFLICT", "The participant found by this email already has a payout wallet; change it with its userId once linked", [
      { path: "walletAddress", message: "cannot change through an email match" },
    ]);
  }
}
