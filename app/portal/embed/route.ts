import { renderEmbed } from "@/server/portal/embed";

export const dynamic = "force-dynamic";
export const GET = renderEmbed;
