export { GET } from "@/server/sdk/routes/proofs";

export const dynamic = "force-dynamic";
