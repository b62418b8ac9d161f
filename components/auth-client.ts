// Sign-up, sign-in and sign-out against the built-in provider (Better Auth at /api/auth/*).
// The server sets the session cookie; the dashboard never handles the token itself.
export interface AuthResult {
  ok: boolean;
  message?: string;
  /** Which field the provider's error is about, when it says so. */
  field?: "email" | "password" | "name" | "businessName";
}

async function post(path: string, body: unknown): Promise<AuthResult> {
  let res: Response;
  try {
    res = await fetch(`/api/auth${path}`, { method: "POST", headers: { "content-type": "application/json" }, credentials: "same-origin", body: JSON.stringify(body) });
  } catch {
    return { ok: false, message: "Network error: check your connection and try again." };
  }
  if (res.ok) return { ok: true };
  // { error: { code, message, details: { reason } } }: the provider's own code is the reason.
  const answer = (await res.json().catch(() => null)) as { error?: { code?: string; message?: string; details?: { reason?: string } } } | null;
  const data = answer?.error ? { code: answer.error.details?.reason ?? answer.error.code, message: answer.error.message } : null;
  const code = data?.code ?? "";
  const message = res.status === 429 ? "Too many attempts: wait a moment and try again." : data?.message || `Request failed (${res.status})`;
  let field: AuthResult["field"];
  if (/PASSWORD/.test(code)) field = "password";
  else if (/EMAIL|USER_ALREADY/.test(code)) field = "email";
  else if (code === "INVALID_INVITATION") field = undefined;
  else if (/businessName/.test(message)) field = "businessName";
  else if (/NAME/.test(code)) field = "name";
  return { ok: false, message: code === "INVALID_EMAIL_OR_PASSWORD" ? "Wrong email or password." : message, field };
}

export const signUp = (input: { email: string; password: string; name: string; businessName?: string; inviteToken?: string }) => post("/sign-up/email", input);
export const signIn = (input: { email: string; password: string }) => post("/sign-in/email", input);
export const signOut = () => post("/sign-out", {});
