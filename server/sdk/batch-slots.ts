// /track/batch requests in progress, bounded per API key and per business (in this process):
// a business flooding batches gets 429 RATE_LIMITED at once, not a queue that grows without end.
import type { AuthenticatedKey } from "../domain/api-keys/service";
import { env } from "../shared/env";
import { AppError } from "../shared/errors";
import { KeyedSlots } from "../shared/concurrency";

const perKey = new KeyedSlots(() => env.batchConcurrencyPerKey);
const perBusiness = new KeyedSlots(() => env.batchConcurrencyPerBusiness);

const busy = (what: string, limit: number) =>
  new AppError("RATE_LIMITED", `Too many batches in progress for this ${what} (at most ${limit} at once); retry after the delay in Retry-After`, undefined, { "Retry-After": "1" });

/** Runs a batch within the key's and the business's share, or throws 429. */
export async function withBatchSlot<T>(key: Pick<AuthenticatedKey, "apiKeyId" | "businessId">, run: () => Promise<T>): Promise<T> {
  const releaseKey = perKey.tryTake(key.apiKeyId);
  if (!releaseKey) throw busy("API key", env.batchConcurrencyPerKey);
  const releaseBusiness = perBusiness.tryTake(key.businessId);
  if (!releaseBusiness) {
    releaseKey();
    throw busy("business", env.batchConcurrencyPerBusiness);
  }
  try {
    return await run();
  } finally {
    releaseBusiness();
    releaseKey();
  }
}
