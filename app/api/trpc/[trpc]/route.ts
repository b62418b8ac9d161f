import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter } from "@/server/routers/_app";
import { createContext } from "@/server/trpc/init";
import { AppError, errorResponse } from "@/server/shared/errors";
import { cappedRequest } from "@/server/shared/http";

/** A batch of the dashboard's calls: inputs are capped one by one, and so is the whole body. */
const MAX_BODY = 64 * 1024;
/** Calls in one batched request (the dashboard's client batches no more: components/providers.tsx). */
const MAX_BATCH = 25;

const handler = async (request: Request) => {
  const req = await cappedRequest(request, MAX_BODY);
  if (!req) return errorResponse(new AppError("PAYLOAD_TOO_LARGE", "The request body exceeds 64 KB"));
  return fetchRequestHandler({ endpoint: "/api/trpc", req, router: appRouter, maxBatchSize: MAX_BATCH, createContext: () => createContext(req) });
};
export { handler as GET, handler as POST };
