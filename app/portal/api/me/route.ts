import { me } from "@/server/portal/routes";

export const { GET, POST, OPTIONS } = me;
