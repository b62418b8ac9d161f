// Shared by the SDK route modules.
import { AppError } from "../../shared/errors";
import type { SdkContext } from "../with-sdk-key";

/** A JSON object body (not an array or a scalar). */
export function objectBody(ctx: SdkContext): Record<string, unknown> {
  const b = ctx.body;
  if (!b || typeof b !== "object" || Array.isArray(b)) throw new AppError("VALIDATION_ERROR", "The body must be a JSON object", [{ path: "", message: "expected an object" }]);
  return b as Record<string, unknown>;
}
