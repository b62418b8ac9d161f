// The Stripe event types the Stripe connection acts on (stripe-receive.ts dispatches on each; any
// other is recorded IGNORED): the Integrations page lists them to select in Stripe's dashboard.
export const STRIPE_EVENT_TYPES = ["checkout.session.completed", "customer.created", "customer.updated", "invoice.paid", "invoice_payment.paid", "charge.refunded", "charge.dispute.created"] as const;
