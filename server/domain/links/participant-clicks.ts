// GET /business/participants/:participantId/clicks: the staff page's click counts (ownership
// checked: a participant of another business is not found).
import { db } from "../../db/client";
import { notFound } from "../../shared/errors";
import { getParticipantClicks } from "./funnel";
import type { ParticipantClicksOutput } from "./schemas";

export async function getBusinessParticipantClicks(businessId: string, participantId: string): Promise<ParticipantClicksOutput> {
  const p = await db.participant.findFirst({ where: { id: participantId, businessId }, select: { environment: true } });
  if (!p) throw notFound("Participant");
  return getParticipantClicks(businessId, p.environment, participantId);
}
