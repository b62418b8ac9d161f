// The scope of a write: which business, environment and API key it belongs to.
import type { Environment } from "./environment";

/** Who is writing: every row written carries the business, the key's environment and the key. */
export interface Scope {
  businessId: string;
  environment: Environment;
  /** null when not written through an API key (e.g. the dashboard's manual event create). */
  apiKeyId: string | null;
  /**
   * True when the caller cannot be trusted to report real events (a publishable key, whose
   * secret lives in browsers): what it records counts, but never qualifies a referral or pays.
   */
  untrusted?: boolean;
}
