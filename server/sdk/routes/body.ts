// Shared by the SDK route modules.
import { assertJsonObject } from "../../shared/json-guard";
import type { SdkContext } from "../with-sdk-key";

/** A JSON object body (not an array or a scalar). */
export function objectBody(ctx: SdkContext): Record<string, unknown> {
  assertJsonObject(ctx.body);
  return ctx.body;
}
