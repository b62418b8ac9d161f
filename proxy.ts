// Methods no route of the service answers (TRACE, CONNECT, PROPFIND, …): Next.js would answer
// them before any route handler runs, outside the contract; here they are 405 in its shape.
import { AppError, errorResponse } from "@/server/shared/errors";

/** Every method some route answers (route handlers take these; HEAD and OPTIONS are automatic). */
const SERVED = ["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"];

export function proxy(req: Request): Response | undefined {
  if (SERVED.includes(req.method)) return undefined;
  return errorResponse(new AppError("METHOD_NOT_ALLOWED", `${req.method.slice(0, 20)} is not supported`, undefined, { Allow: SERVED.join(", ") }));
}

export const config = { matcher: "/((?!_next/static|_next/image).*)" };
