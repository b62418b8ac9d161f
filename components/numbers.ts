// Whole-number form fields read one way: empty is "none" (null), digits are the number, anything
// else ("abc", "5.5", "1e1", "-2", out of range) is a message in words and nothing is sent.
export type WholeNumber = { ok: true; value: number | null } | { ok: false; message: string };

export function readWholeNumber(text: string, o: { min: number; max: number; what: string; emptyMeans: string }): WholeNumber {
  const s = text.trim();
  if (s === "") return { ok: true, value: null };
  const n = /^\d{1,9}$/.test(s) ? Number(s) : NaN;
  if (Number.isInteger(n) && n >= o.min && n <= o.max) return { ok: true, value: n };
  return { ok: false, message: `Enter ${o.what} as a whole number from ${o.min.toLocaleString("en-US")} to ${o.max.toLocaleString("en-US")}, or leave it empty for ${o.emptyMeans}.` };
}
