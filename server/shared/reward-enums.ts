// A reward's status and kind as the API names them: schema atoms shared by the rewards,
// events, referrals and reversals views (the database enums of the same names).
import { z } from "zod";

export const rewardStatus = z.enum(["PAID", "HELD", "REFUSED"]);
export const rewardKind = z.enum(["REFERRAL", "BONUS", "MANUAL", "COMMISSION"]);
