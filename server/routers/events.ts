import { z } from "zod";
import { changeEventStatusInput, createEventInput, eventDecisionPreviewOutput, eventIdInput, eventOutput, listEventsInput, listEventsOutput, previewEventDecisionInput, rewardOutcomeOutput } from "../domain/events/schemas";
import { changeEventStatus, createEvent, getEvent, listEvents, previewEventDecision } from "../domain/events/service";
import { trackQueuedOutput, trackSyncOutput } from "../domain/tracking/schemas";
import { adminProcedure, businessProcedure, router } from "../trpc/init";

export const eventsRouter = router({
  list: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/events", tags: ["events"], summary: "List business events (filters, cursor pagination)", protect: true } })
    .input(listEventsInput)
    .output(listEventsOutput)
    .query(({ ctx, input }) => listEvents(ctx.businessId, input)),
  get: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/events/{eventId}", tags: ["events"], summary: "One business event with its rewards", protect: true } })
    .input(eventIdInput)
    .output(eventOutput)
    .query(({ ctx, input }) => getEvent(ctx.businessId, input.eventId)),
  create: adminProcedure
    .meta({ openapi: { method: "POST", path: "/business/events", tags: ["events"], summary: "Create an event through the /track pipeline (owner or admin: it may pay rewards)", protect: true } })
    .input(createEventInput)
    .output(z.union([trackSyncOutput, trackQueuedOutput]))
    .mutation(({ ctx, input }) => createEvent(ctx.businessId, input)),
  changeStatus: businessProcedure
    .meta({ openapi: { method: "PATCH", path: "/business/events/{eventId}/status", tags: ["events"], summary: "Approve (PROCESSED) or reject (REJECTED) a FLAGGED event", protect: true } })
    .input(changeEventStatusInput)
    // `outcome`: each reward the decision touched, with its recipient, amount, status and reason.
    .output(eventOutput.extend({ outcome: z.array(rewardOutcomeOutput) }))
    .mutation(({ ctx, input }) => changeEventStatus(ctx.businessId, input)),
  previewStatus: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/events/{eventId}/status-preview", tags: ["events"], summary: "What approving or rejecting a FLAGGED event would pay now, reward by reward (writes nothing)", protect: true } })
    .input(previewEventDecisionInput)
    .output(eventDecisionPreviewOutput)
    .query(({ ctx, input }) => previewEventDecision(ctx.businessId, input)),
});
