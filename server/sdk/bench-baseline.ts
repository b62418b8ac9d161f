// Benchmark baseline (served at POST /bench/baseline only when BENCH_ROUTES=1, else 404): the
// cheapest answer this app can give to a /track-shaped request (read and parse the JSON body,
// answer constant JSON), so that `npm run bench` can report the SDK routes' throughput as a
// ratio of it, measured side by side in the same run.
import { AppError, errorResponse } from "../shared/errors";
import { env } from "../shared/env";

const CONSTANT = { success: true, queued: true, baseline: true };

export async function benchBaseline(req: Request): Promise<Response> {
  if (!env.benchRoutes) return errorResponse(new AppError("NOT_FOUND", "No such route"));
  try {
    JSON.parse(await req.text());
  } catch {
    return errorResponse(new AppError("INVALID_JSON", "The body is not valid JSON"));
  }
  return Response.json(CONSTANT);
}
