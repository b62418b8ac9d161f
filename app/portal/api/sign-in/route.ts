import { signIn } from "@/server/portal/email-routes";

export const dynamic = "force-dynamic";
export const POST = signIn;
