// Reads the contract's error body ({ code, message, details: [{ path, message }] }) out of a
// tRPC client error, so forms can show each message next to its field.
export interface ContractError {
  code: string;
  message: string;
  details?: unknown;
}

export function contractError(error: unknown): ContractError | null {
  if (!error || typeof error !== "object") return null;
  const data = (error as { data?: { error?: ContractError } | null }).data;
  if (data?.error && typeof data.error.code === "string") return data.error;
  const message = (error as { message?: string }).message;
  return message ? { code: "UNKNOWN", message } : null;
}

/** { "allowedOrigins.0": "Must be an origin…", … } from a VALIDATION_ERROR. */
export function fieldErrors(error: unknown): Record<string, string> {
  const e = contractError(error);
  const out: Record<string, string> = {};
  if (!e || !Array.isArray(e.details)) return out;
  for (const d of e.details as Array<{ path?: unknown; message?: unknown }>) {
    if (typeof d?.path === "string" && typeof d.message === "string" && !(d.path in out)) out[d.path] = d.message;
  }
  return out;
}

/** The message to show at the top of a form: field errors are shown at their fields instead. */
export function formError(error: unknown, knownFields: string[] = []): string | null {
  const e = contractError(error);
  if (!e) return null;
  const fields = Object.keys(fieldErrors(error));
  if (fields.length && fields.every((f) => knownFields.some((k) => f === k || f.startsWith(`${k}.`)))) return null;
  if (fields.length) return `${e.message}: ${Object.entries(fieldErrors(error)).map(([p, m]) => `${p || "body"}: ${m}`).join("; ")}`;
  return e.message;
}

/** First error for a field or any of its children (e.g. "allowedOrigins" matches "allowedOrigins.2"). */
export function errorFor(errors: Record<string, string>, field: string): string | undefined {
  if (errors[field]) return errors[field];
  const child = Object.keys(errors).find((k) => k.startsWith(`${field}.`));
  return child ? errors[child] : undefined;
}
