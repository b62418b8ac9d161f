import { unsubscribeRoute } from "@/server/portal/email-routes";

export const dynamic = "force-dynamic";
export const GET = unsubscribeRoute;
export const POST = unsubscribeRoute;
