// Re-authentication for the operations a stolen session must not do in one call (handing the
// business to someone else): the signed-in user's own password, checked by the built-in provider.
import { actionLimit } from "../shared/action-limit";
import { AppError } from "../shared/errors";
import { env } from "../shared/env";

const required = (message: string) => new AppError("REAUTHENTICATION_REQUIRED", message);

// Guessing the password through a stolen session is bounded per user.
const takeAttempt = actionLimit("reauth", () => 5, 15 * 60);

/** Throws 403 REAUTHENTICATION_REQUIRED unless `password` is the password of the session's user. */
export async function requirePassword(headers: Headers, userId: string, password: string | undefined): Promise<void> {
  if (!password) throw required("Confirm with your password (`password` in the body)");
  if (!env.authIsSelf) throw required("Passwords are kept by the external sign-in provider (AUTH_URL): this operation cannot be confirmed here");
  await takeAttempt(userId, "password confirmations");
  const { auth } = await import("./better-auth");
  // Only the credentials, as for the session lookup.
  const only = new Headers();
  for (const name of ["cookie", "authorization"]) {
    const v = headers.get(name);
    if (v) only.set(name, v);
  }
  const ok = await auth.api
    .verifyPassword({ body: { password }, headers: only })
    .then((r) => r.status === true)
    .catch(() => false);
  if (!ok) throw required("The password is not correct");
}
