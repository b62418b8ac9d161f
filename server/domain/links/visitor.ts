// Who clicked, without keeping who: bots and link previews are told apart by their user agent,
// and a visitor is an HMAC of IP address and user agent under a key that changes every UTC day
// (derived from the server secret), so clicks of one day can be grouped and neither value is stored.
import { createHmac } from "node:crypto";
import { env } from "../../shared/env";

// Crawlers and the link-preview fetchers of chat and social apps (they open every shared link).
const BOT_UA =
  /bot\b|bot\/|crawl|spider|slurp|facebookexternalhit|facebookcatalog|meta-externalagent|embedly|quora link preview|pinterest|vkshare|w3c_validator|whatsapp|telegrambot|slack-imgproxy|slackbot|discordbot|skypeuripreview|bitlybot|tumblr|redditbot|linkedinbot|twitterbot|applebot|google-inspectiontool|googleother|feedfetcher|mediapartners|headlesschrome|lighthouse|preview|prerender|yahoo! slurp|bingpreview|petalbot|ahrefs|semrush|mj12bot|dotbot|yandex|baiduspider|duckduckbot|ia_archiver|outbrain|nuzzel|iframely|opengraph|metainspector|zoominfo/i;

export function isBotUserAgent(ua: string | null): boolean {
  return !!ua && BOT_UA.test(ua);
}

const dayKeys = new Map<string, Buffer>();

function dayKey(day: string): Buffer {
  let k = dayKeys.get(day);
  if (!k) {
    k = createHmac("sha256", env.authSecret).update(`rts-click-day:${day}`).digest();
    dayKeys.clear(); // one day's key at a time (two around midnight at most)
    dayKeys.set(day, k);
  }
  return k;
}

/** HMAC-SHA256(key of the UTC day, ip + user agent), 32 hex characters. */
export function visitorHash(ip: string | null, ua: string | null, at: Date): string {
  const day = at.toISOString().slice(0, 10);
  return createHmac("sha256", dayKey(day)).update(`${ip ?? ""}\n${(ua ?? "").slice(0, 512)}`).digest("hex").slice(0, 32);
}

/** The start of the UTC hour: the dedup window of counted clicks. */
export const hourOf = (d: Date) => new Date(Math.floor(d.getTime() / 3_600_000) * 3_600_000);
