import { walletChallenge } from "@/server/portal/routes";

export const { GET, POST, OPTIONS } = walletChallenge;
