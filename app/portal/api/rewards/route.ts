import { rewards } from "@/server/portal/routes";

export const { GET, POST, OPTIONS } = rewards;
