// Small HTTP helpers shared by the SDK wrapper and the REST face.
/** The body as text, or null when it exceeds `max` bytes. */
export async function readCapped(req: Request, max: number): Promise<string | null> {
  const reader = req.body!.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * The request with its body read under `max` bytes (into a copy: a body reads once), or null when
 * it is larger: nothing parses a body past the cap, before or after authentication.
 */
export async function cappedRequest(req: Request, max: number): Promise<Request | null> {
  if (!req.body || req.method === "GET" || req.method === "HEAD") return req;
  if (Number(req.headers.get("content-length") ?? 0) > max) return null;
  const text = await readCapped(req, max);
  if (text === null) return null;
  const headers = new Headers(req.headers);
  headers.delete("content-length");
  return new Request(req.url, { method: req.method, headers, body: text, signal: req.signal });
}
