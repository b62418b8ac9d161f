// How the portal shows other people: never a full email, name or id. "john@example.com" →
// "j•••@example.com", "John Smith" → "J••• S.", nothing known → "Someone".
const DOTS = "•••";

export function maskEmail(email: string): string {
  const at = email.lastIndexOf("@");
  if (at < 1) return `${email.slice(0, 1)}${DOTS}`;
  return `${email.slice(0, 1)}${DOTS}${email.slice(at)}`;
}

export function maskName(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return "Someone";
  const first = `${[...words[0]][0]}${DOTS}`;
  return words.length > 1 ? `${first} ${[...words[words.length - 1]][0]}.` : first;
}

/** A referred person as the referrer may see them. */
export function maskPerson(p: { email: string | null; name: string | null }): string {
  if (p.email) return maskEmail(p.email);
  if (p.name) return maskName(p.name);
  return "Someone";
}
