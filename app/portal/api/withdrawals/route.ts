import { withdrawals } from "@/server/portal/routes";

export const { GET, POST, OPTIONS } = withdrawals;
