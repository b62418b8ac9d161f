import { wallet } from "@/server/portal/routes";

export const { GET, POST, OPTIONS } = wallet;
