import { z } from "zod";
import {
  emailDetailOutput,
  emailIdInput,
  listEmailsInput,
  listEmailsOutput,
  memberNotificationsOutput,
  notificationsInput,
  notificationsOutput,
  updateMemberNotificationsInput,
  updateNotificationsInput,
} from "../domain/email/schemas";
import { getEmail, getMemberNotifications, getNotifications, listEmails, updateMemberNotifications, updateNotifications } from "../domain/email/service";
import { adminProcedure, businessProcedure, router } from "../trpc/init";

const tags = ["emails"];

export const emailsRouter = router({
  notifications: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/notifications", tags, summary: "Which referrer emails the business sends in an environment, and as whom", protect: true } })
    .input(notificationsInput)
    .output(notificationsOutput)
    .query(({ ctx, input }) => getNotifications(ctx.businessId, input.environment)),
  updateNotifications: adminProcedure
    .meta({ openapi: { method: "PATCH", path: "/business/notifications", tags, summary: "Turn referrer emails on or off; set the sender name and reply-to address (owner or admin)", protect: true } })
    .input(updateNotificationsInput)
    .output(notificationsOutput)
    .mutation(({ ctx, input }) => updateNotifications(ctx.businessId, input)),
  myNotifications: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/members/me/notifications", tags, summary: "The staff emails you receive", protect: true } })
    .input(z.strictObject({}).optional())
    .output(memberNotificationsOutput)
    .query(({ ctx }) => getMemberNotifications(ctx.membership.memberId)),
  updateMyNotifications: businessProcedure
    .meta({ openapi: { method: "PATCH", path: "/business/members/me/notifications", tags, summary: "Turn the staff emails you receive on or off", protect: true } })
    .input(updateMemberNotificationsInput)
    .output(memberNotificationsOutput)
    .mutation(({ ctx, input }) => updateMemberNotifications(ctx.membership.memberId, input)),
  list: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/emails", tags, summary: "The email log, newest first", protect: true } })
    .input(listEmailsInput)
    .output(listEmailsOutput)
    .query(({ ctx, input }) => listEmails(ctx.businessId, input)),
  get: businessProcedure
    .meta({ openapi: { method: "GET", path: "/business/emails/{emailId}", tags, summary: "One email with its text and HTML, as the recipient sees it", protect: true } })
    .input(emailIdInput)
    .output(emailDetailOutput)
    .query(({ ctx, input }) => getEmail(ctx.businessId, input.emailId)),
});
