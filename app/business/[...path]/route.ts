import { handleBusinessRest } from "@/server/rest/business-rest";

export const dynamic = "force-dynamic";
export { handleBusinessRest as GET, handleBusinessRest as POST, handleBusinessRest as PATCH, handleBusinessRest as PUT, handleBusinessRest as DELETE };
