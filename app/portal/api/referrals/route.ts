import { referrals } from "@/server/portal/routes";

export const { GET, POST, OPTIONS } = referrals;
