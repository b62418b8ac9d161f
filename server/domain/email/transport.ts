// The SMTP connection: SMTP_URL (smtp://user:pass@host:port, smtps://…), STARTTLS when the server
// offers it, certificates verified unless SMTP_TLS_INSECURE=1, and timeouts short enough that a
// hanging server ends an attempt (retried with backoff) well within a job's lease.
import nodemailer, { type Transporter } from "nodemailer";
import { env } from "../../shared/env";

let cached: { url: string; insecure: boolean; transport: Transporter } | null = null;

/** The transport for SMTP_URL, or null when email is not configured (messages stay NOT_CONFIGURED). */
export function smtpTransport(): Transporter | null {
  const url = env.smtpUrl;
  if (!url) return null;
  const insecure = env.smtpTlsInsecure;
  if (cached?.url === url && cached.insecure === insecure) return cached.transport;
  const timeout = env.smtpTimeoutMs;
  const options = { url, connectionTimeout: timeout, greetingTimeout: timeout, socketTimeout: timeout, tls: { rejectUnauthorized: !insecure } };
  cached = { url, insecure, transport: nodemailer.createTransport(options as Parameters<typeof nodemailer.createTransport>[0]) };
  return cached.transport;
}
