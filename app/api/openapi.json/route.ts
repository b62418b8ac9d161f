import { openApiDocument } from "@/server/trpc/rest";

export const dynamic = "force-dynamic";
export const GET = () => Response.json(openApiDocument());
