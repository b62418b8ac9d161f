import { openPortal } from "@/server/portal/open";

export const dynamic = "force-dynamic";
export const GET = openPortal;
