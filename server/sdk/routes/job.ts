// GET /sdk/jobs/:jobId: status of a queued job of this key's business and environment.
import { getJob } from "../../domain/jobs/view";
import { notFound } from "../../shared/errors";
import { withSdkKey } from "../with-sdk-key";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = withSdkKey({
  GET: async (ctx) => {
    let jobId: string;
    try {
      jobId = decodeURIComponent(ctx.url.pathname.split("/").filter(Boolean).pop() ?? "");
    } catch {
      throw notFound("Job");
    }
    return { body: await getJob(ctx.scope, jobId) };
  },
}, { scope: "jobs:read" });
