import { payouts } from "@/server/portal/routes";

export const { GET, POST, OPTIONS } = payouts;
