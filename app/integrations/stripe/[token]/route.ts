export { POST, GET, PUT, PATCH, DELETE } from "@/server/integrations/stripe-webhook";

export const dynamic = "force-dynamic";
