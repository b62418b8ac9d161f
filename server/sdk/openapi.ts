// OpenAPI descriptions of the SDK routes (plain route handlers, not tRPC), merged into
// GET /api/openapi.json next to the generated business routes.
import type { ZodOpenApiPathsObject } from "zod-openapi";

export const sdkOpenApiPaths: ZodOpenApiPathsObject = {};
