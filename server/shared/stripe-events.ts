// The Stripe event types the Stripe connection acts on (any other is recorded IGNORED): the
// receiver dispatches on them and the Integrations page lists them to select in Stripe.
export const STRIPE_EVENT_TYPES = ["checkout.session.completed", "customer.created", "customer.updated", "invoice.paid", "charge.refunded", "charge.dispute.created"] as const;
