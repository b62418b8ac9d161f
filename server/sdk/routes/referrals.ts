// GET /sdk/referrals: referrals created through this API key, newest first, by cursor.
import { listReferralsQuery } from "../../domain/referrals/schemas";
import { listReferralsForApiKey } from "../../domain/referrals/service";
import { withSdkKey } from "../with-sdk-key";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = withSdkKey({
  GET: async (ctx) => {
    const q = listReferralsQuery.parse(Object.fromEntries(ctx.url.searchParams));
    return { body: await listReferralsForApiKey(ctx.key.apiKeyId, q) };
  },
}, { scope: "referrals:read" });
