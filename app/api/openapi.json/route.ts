import { openApiDocument } from "@/server/rest/business-rest";

export const dynamic = "force-dynamic";
export const GET = () => Response.json(openApiDocument());
