import { toNextJsHandler } from "better-auth/next-js";
import { auth } from "@/server/auth/better-auth";
import { inContractShape } from "@/server/auth/contract-errors";

const handlers = toNextJsHandler(auth);
export const GET = async (req: Request) => inContractShape(await handlers.GET(req));
export const POST = async (req: Request) => inContractShape(await handlers.POST(req));
