import { z } from "zod";
import { apiKeyIdInput, apiKeyOutput, apiKeyWithSecretOutput, createApiKeyInput, rotateApiKeyInput } from "../domain/api-keys/schemas";
import { createApiKey, getOwnedApiKey, listApiKeys, revokeApiKey, rotateApiKey } from "../domain/api-keys/service";
import { listReferralsQuery, referralListOutput } from "../domain/referrals/schemas";
import { listReferralsForApiKey } from "../domain/referrals/service";
import { businessProcedure, ownerProcedure, router } from "../trpc/init";

export const apiKeysRouter = router({
  list: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/api-keys", tags: ["api-keys"], summary: "List API keys (never secrets)", protect: true } })
    .input(z.object({}))
    .output(z.object({ data: z.array(apiKeyOutput), nextCursor: z.null() }))
    .query(async ({ ctx }) => ({ data: await listApiKeys(ctx.businessId), nextCursor: null })),
  create: ownerProcedure
    .meta({ openapi: { method: "POST", path: "/business/api-keys", tags: ["api-keys"], summary: "Create an API key; the secret is returned once", protect: true } })
    .input(createApiKeyInput)
    .output(apiKeyWithSecretOutput)
    .mutation(({ ctx, input }) => createApiKey(ctx.businessId, input)),
  rotate: ownerProcedure
    .meta({ openapi: { method: "POST", path: "/business/api-keys/{apiKeyId}/rotate", tags: ["api-keys"], summary: "Rotate: same apiKeyId, new secret", protect: true } })
    .input(rotateApiKeyInput)
    .output(apiKeyWithSecretOutput)
    .mutation(({ ctx, input }) => rotateApiKey(ctx.businessId, input.apiKeyId, input.expiresInSeconds)),
  revoke: ownerProcedure
    .meta({ openapi: { method: "DELETE", path: "/business/api-keys/{apiKeyId}", tags: ["api-keys"], summary: "Revoke a key (effective on the next request)", protect: true } })
    .input(apiKeyIdInput)
    .output(apiKeyOutput)
    .mutation(({ ctx, input }) => revokeApiKey(ctx.businessId, input.apiKeyId)),
  referrals: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/api-keys/{apiKeyId}/referrals", tags: ["api-keys"], summary: "Referrals created through this key, newest first", protect: true } })
    .input(listReferralsQuery.extend({ apiKeyId: z.string().min(1).max(64) }))
    .output(referralListOutput)
    .query(async ({ ctx, input }) => {
      // Ownership first: another business's key is a 404, never its referrals.
      const key = await getOwnedApiKey(ctx.businessId, input.apiKeyId);
      return listReferralsForApiKey(key.id, input);
    }),
});
