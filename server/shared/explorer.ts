// Links to the environment's block explorer (EXPLORER_URL, EXPLORER_URL_TEST), when one is configured.
import { env } from "./env";

/** A transaction's page on the environment's block explorer, or null (none configured, or no transaction yet). */
export const txUrlFor = (environment: "TEST" | "LIVE", txHash: string | null) => {
  const base = env.explorerUrl(environment);
  return base && txHash ? `${base}/tx/${txHash}` : null;
};
