import { toNextJsHandler } from "better-auth/next-js";
import { auth } from "@/server/auth/better-auth";
import { inContractShape } from "@/server/auth/contract-errors";
import { AppError, errorResponse } from "@/server/shared/errors";
import { cappedRequest } from "@/server/shared/http";

/** Sign-up, sign-in and profile bodies are a few short fields. */
const MAX_BODY = 16 * 1024;

const handlers = toNextJsHandler(auth);
export const GET = async (req: Request) => inContractShape(await handlers.GET(req));
export const POST = async (request: Request) => {
  const req = await cappedRequest(request, MAX_BODY);
  if (!req) return errorResponse(new AppError("PAYLOAD_TOO_LARGE", "The request body exceeds 16 KB"));
  return inContractShape(await handlers.POST(req));
};
