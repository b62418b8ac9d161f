import { create } from "@/server/sdk/routes/portal-sessions";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = create;
