// HTTP helpers shared by the benchmarks that drive the running app (bench/run.ts, bench/processing.ts).

/** A JSON call; a non-2xx answer throws with its body. */
export async function call(url: string, method: string, p: string, body?: unknown, headers: Record<string, string> = {}) {
  const r = await fetch(`${url}${p}`, { method, headers: { "content-type": "application/json", ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = (await r.json()) as Record<string, unknown>;
  if (!r.ok) throw new Error(`${method} ${p} → ${r.status} ${JSON.stringify(json)}`);
  return json;
}

/** Signs a new business up through the real API and creates a TEST key: the key's secret and the owner's session token. */
export async function signUpWithToken(url: string, emailPrefix: string): Promise<{ secret: string; token: string }> {
  const signUp = await fetch(`${url}/api/auth/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: url },
    body: JSON.stringify({ email: `${emailPrefix}-${Date.now()}@example.com`, password: "correct-horse-battery", name: "Bench", businessName: "Bench Co" }),
  });
  const { token } = (await signUp.json()) as { token: string };
  const key = await call(url, "POST", "/business/api-keys", { environment: "TEST", name: "bench" }, { authorization: `Bearer ${token}` });
  return { secret: String(key.secret), token };
}

/** Signs a new business up through the real API and creates a TEST key; returns the key's secret. */
export async function signUpWithTestKey(url: string, emailPrefix: string): Promise<string> {
  return (await signUpWithToken(url, emailPrefix)).secret;
}
