// The portal's wallet step (Sign-In with Ethereum, EIP-4361): the participant states an address,
// gets a message naming this app's domain, the environment's chain id and a single-use nonce
// (10 minutes), signs it with the wallet, and the signature sets their payout wallet as verified.
// EOA signatures are checked locally; other signatures (EIP-1271 contract wallets, EIP-6492) on
// the environment's chain. The wallet is written by the participants' own wallet function, and
// each wallet set here is recorded in the business's audit log (action "portal.wallet.verify",
// the wallet before and after), so a verified wallet replaced through a portal session shows there.
import { type Address, type Hex, verifyMessage } from "viem";
import { createSiweMessage, generateSiweNonce, parseSiweMessage, verifySiweMessage } from "viem/siwe";
import { chainTarget, onChain, publicClientFor, requireChainTarget } from "../../chain/clients";
import { db } from "../../db/client";
import { AppError } from "../../shared/errors";
import { hashIp, recordAudit } from "../audit/service";
import { env } from "../../shared/env";
import type { Environment } from "../../shared/environment";
import { updateParticipantInput, updateParticipantWallet } from "../payouts/wallet";
import type { PortalAuth } from "../../shared/portal-auth";
import type { WalletVerifyInput } from "./schemas";

const CHALLENGE_TTL_MS = 10 * 60_000;

const chainIds = new Map<string, number>();
/** The chain id of an environment's chain (read once per RPC URL). */
async function environmentChainId(environment: Environment): Promise<number> {
  const target = requireChainTarget(environment);
  const known = chainIds.get(target.rpcUrl);
  if (known !== undefined) return known;
  const id = await onChain(target, "getChainId", () => publicClientFor(target.rpcUrl).getChainId());
  chainIds.set(target.rpcUrl, id);
  return id;
}

/** The authority (host[:port]) the messages name, and the portal's URI. */
const siweDomain = () => new URL(env.appUrl).host;
const siweUri = () => `${env.appUrl}/portal`;

function refuseReadOnly(auth: PortalAuth) {
  if (auth.readOnly) throw new AppError("FORBIDDEN", "A staff preview of the portal is read-only");
}

export async function createWalletChallenge(auth: PortalAuth, address: Address, opts: { chainId?: number; now?: Date } = {}) {
  refuseReadOnly(auth);
  const now = opts.now ?? new Date();
  const chainId = opts.chainId ?? (await environmentChainId(auth.environment));
  const business = await db.business.findUnique({ where: { id: auth.businessId }, select: { name: true } });
  const nonce = generateSiweNonce();
  const expiresAt = new Date(now.getTime() + CHALLENGE_TTL_MS);
  const message = createSiweMessage({
    domain: siweDomain(),
    address,
    statement: `Receive ${business?.name ?? "referral"} rewards at this wallet.`.replace(/\n/g, " "),
    uri: siweUri(),
    version: "1",
    chainId,
    nonce,
    issuedAt: now,
    expirationTime: expiresAt,
  });
  await db.walletChallenge.create({ data: { nonce, participantId: auth.participantId, address, chainId, expiresAt, createdAt: now } });
  return { message, nonce, expiresAt: expiresAt.toISOString() };
}

/** Wallet clocks and ISO rounding may shift the issue time a little, never by more than this. */
const ISSUED_AT_SKEW_MS = 60_000;
/** True when a message's issuedAt is the challenge's own (a message dated far off is not the one issued). */
const issuedWithChallenge = (issuedAt: Date | undefined, createdAt: Date) =>
  issuedAt !== undefined && Math.abs(issuedAt.getTime() - createdAt.getTime()) <= ISSUED_AT_SKEW_MS;

const invalid = (why: string) => new AppError("INVALID_CHALLENGE", why);

/** True when the signature is the address's: locally for an EOA, else through the chain (EIP-1271 / EIP-6492). */
async function signatureValid(environment: Environment, address: Address, message: string, signature: Hex): Promise<boolean> {
  try {
    if (await verifyMessage({ address, message, signature })) return true;
  } catch {
    // not a recoverable 65-byte signature: maybe a contract wallet's
  }
  const target = chainTarget(environment);
  if ("problem" in target) return false;
  const client = publicClientFor(target.rpcUrl);
  return onChain(target, "verifySiweMessage", () => verifySiweMessage(client, { message, signature, address }));
}

export async function verifyWalletSignature(auth: PortalAuth, input: WalletVerifyInput, opts: { now?: Date; clientIp?: string | null } = {}) {
  refuseReadOnly(auth);
  const now = opts.now ?? new Date();
  const fields = parseSiweMessage(input.message);
  if (!fields.nonce || !fields.address || !fields.chainId) throw invalid("Not a Sign-In with Ethereum message of this portal");
  const challenge = await db.walletChallenge.findUnique({ where: { nonce: fields.nonce } });
  if (!challenge || challenge.participantId !== auth.participantId) throw invalid("Unknown nonce: ask for a new challenge");
  if (challenge.usedAt) throw invalid("This nonce was already used: ask for a new challenge");
  if (challenge.expiresAt <= now || (fields.expirationTime && fields.expirationTime <= now)) throw invalid("The challenge expired: ask for a new challenge");
  if (!issuedWithChallenge(fields.issuedAt, challenge.createdAt)) throw invalid("The message must carry the challenge's issue time");
  if (fields.notBefore && fields.notBefore > now) throw invalid("The message is not valid yet: sign the challenge as issued");
  if (fields.domain !== siweDomain()) throw invalid(`The message must name the domain ${siweDomain()}`);
  if (fields.chainId !== challenge.chainId) throw invalid(`The message must name chain ${challenge.chainId}`);
  if (fields.address.toLowerCase() !== challenge.address.toLowerCase()) throw invalid("The message names another address than the challenge");
  if (fields.uri !== siweUri() || fields.version !== "1") throw invalid("The message is not this portal's");
  if (!(await signatureValid(auth.environment, challenge.address as Address, input.message, input.signature as Hex))) {
    throw new AppError("INVALID_SIGNATURE", "The signature does not verify for this address and message");
  }
  // Single use: only the first request to mark the nonce proceeds.
  const used = await db.walletChallenge.updateMany({ where: { nonce: challenge.nonce, usedAt: null }, data: { usedAt: now } });
  if (used.count !== 1) throw invalid("This nonce was already used: ask for a new challenge");
  const before = await db.participant.findUnique({ where: { id: auth.participantId }, select: { walletAddress: true, walletVerified: true, walletVerifiedAt: true } });
  const out = await updateParticipantWallet(auth.businessId, updateParticipantInput.parse({ participantId: auth.participantId, walletAddress: challenge.address }), now);
  // The change is one statement, now committed: its entry follows in a transaction of its own, as
  // the dashboard's one-statement changes do (trpc/audit.ts). The actor is the participant, no staff member.
  await db.$transaction((tx) =>
    recordAudit(tx, {
      businessId: auth.businessId,
      environment: auth.environment,
      actor: { userId: null, email: null },
      action: "portal.wallet.verify",
      target: `participantId:${auth.participantId}`,
      before: before && { walletAddress: before.walletAddress, walletVerified: before.walletVerified, walletVerifiedAt: before.walletVerifiedAt?.toISOString() ?? null },
      after: { walletAddress: out.walletAddress, walletVerified: out.walletVerified, walletVerifiedAt: out.walletVerifiedAt, portalSessionId: auth.sessionId },
      ipHash: hashIp(opts.clientIp),
    }),
  );
  return { walletAddress: out.walletAddress, walletVerified: out.walletVerified, walletVerifiedAt: out.walletVerifiedAt };
}
