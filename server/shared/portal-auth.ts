// Who a portal request acts for, as the portal's session check (domain/portal/sessions.ts)
// answers it and every portal read, write and proof takes it.

/** Who a portal request acts for: one participant of one business and environment. */
export interface PortalAuth {
  sessionId: string | null;
  businessId: string;
  environment: "TEST" | "LIVE";
  participantId: string;
  returnUrl: string | null;
  expiresAt: Date;
  /** A staff member's read-only preview from the dashboard: nothing can be changed. */
  readOnly: boolean;
}
