import { z } from "zod";
import { configOutput } from "../domain/config/schemas";
import { getConfig } from "../domain/config/service";
import { businessProcedure, router } from "../trpc/init";

export const configRouter = router({
  get: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/config", tags: ["config"], summary: "Read configuration", protect: true } })
    .input(z.object({}))
    .output(configOutput)
    .query(({ ctx }) => getConfig(ctx.businessId)),
});
