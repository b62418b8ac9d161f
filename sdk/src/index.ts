// @referral-tracking/sdk — the server-side entry: the API client, webhook verification and proof-of-liabilities verification.
export { createClient } from "./client.js";
export type { ApplyReferralResponse, ClientOptions, Referral, ReferralClient, RequestOptions, TrackEvent, TrackResponse, WaitOptions } from "./client.js";
export {
  AuthenticationError,
  ConflictError,
  ConnectionError,
  JobTimeoutError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ReferralApiError,
  ServerError,
  UnprocessableError,
  ValidationError,
} from "./errors.js";
export { verifyWebhook, WebhookVerificationError } from "./webhooks.js";
export type { VerifyOptions, WebhookEvent, WebhookHeaders } from "./webhooks.js";
export { liabilityLeafHash, liabilityRootOf, verifyLiabilityProof } from "./proofs.js";
export type { LiabilityLeaf, LiabilityProof, LiabilityProofVerdict, VerifyLiabilityProofInput } from "./proofs.js";
export type * from "./types.js";
