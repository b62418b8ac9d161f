export { GET, HEAD } from "@/server/sdk/routes/link";

export const dynamic = "force-dynamic";
