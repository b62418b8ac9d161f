// The portal's JSON API: GET /portal/api/me|referrals|rewards|payouts, POST /portal/api/wallet/challenge,
// POST /portal/api/wallet, and GET|POST /portal/api/withdrawals. Each is one domain call behind withPortalAuth; answers pass their
// output schema, an allowlist of the fields a participant may see.
import { portalListInput, portalMeOutput, portalPayoutsOutput, portalReferralsOutput, portalRewardsOutput, walletChallengeInput, walletVerifyInput } from "../domain/portal/schemas";
import { portalMe, portalPayouts, portalReferrals, portalRewards } from "../domain/portal/read";
import { createWalletChallenge, verifyWalletSignature } from "../domain/portal/wallet";
import { listWithdrawals, requestWithdrawal } from "../domain/payouts/withdrawals";
import { requestWithdrawalInput, withdrawalRequested, withdrawalsInput, withdrawalsOutput } from "../domain/payouts/withdrawal-schemas";
import { requestClientIp } from "../shared/client-ip";
import { queryOf, withPortalAuth } from "./with-portal-auth";

export const me = withPortalAuth({ GET: async ({ auth }) => ({ body: portalMeOutput.parse(await portalMe(auth)) }) });
export const referrals = withPortalAuth({ GET: async ({ auth, url }) => ({ body: portalReferralsOutput.parse(await portalReferrals(auth, portalListInput.parse(queryOf(url)))) }) });
export const rewards = withPortalAuth({ GET: async ({ auth, url }) => ({ body: portalRewardsOutput.parse(await portalRewards(auth, portalListInput.parse(queryOf(url)))) }) });
export const payouts = withPortalAuth({ GET: async ({ auth, url }) => ({ body: portalPayoutsOutput.parse(await portalPayouts(auth, portalListInput.parse(queryOf(url)))) }) });
export const walletChallenge = withPortalAuth({ POST: async ({ auth, body }) => ({ body: await createWalletChallenge(auth, walletChallengeInput.parse(body).address) }) });
export const wallet = withPortalAuth({
  POST: async ({ auth, body, req }) => ({ body: await verifyWalletSignature(auth, walletVerifyInput.parse(body), { clientIp: requestClientIp(req.headers) }) }),
});
export const withdrawals = withPortalAuth(
  {
    GET: async ({ auth, url }) => ({ body: withdrawalsOutput.parse(await listWithdrawals(auth, withdrawalsInput.parse(queryOf(url)))) }),
    POST: async ({ auth, body, req }) => {
      requestWithdrawalInput.parse(body);
      return { status: 202, body: withdrawalRequested.parse(await requestWithdrawal(auth, { clientIp: requestClientIp(req.headers) })) };
    },
  },
  { optionalBody: true },
);
