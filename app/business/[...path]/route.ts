import { handleBusinessRest } from "@/server/trpc/rest";

export const dynamic = "force-dynamic";
export { handleBusinessRest as GET, handleBusinessRest as POST, handleBusinessRest as PATCH, handleBusinessRest as PUT, handleBusinessRest as DELETE };
