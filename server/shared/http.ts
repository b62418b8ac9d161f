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
