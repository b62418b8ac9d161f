import { notifications } from "@/server/portal/email-routes";

export const { GET, POST, OPTIONS } = notifications;
