// A payout wallet set, changed or cleared through POST /sdk/participants is a change to where money
// goes: the audit log records it with the API key as the actor, in the transaction of the change,
// through the very route function app/ mounts. Requests that change no wallet record nothing.
import { describe, expect, it } from "vitest";
import { db } from "../db/client";
import { createApiKey } from "../domain/api-keys/service";
import { listAuditLog, verifyAuditLog } from "../domain/audit/service";
import { listAuditLogInput } from "../domain/audit/schemas";
import { CLIENT_IP_HEADER } from "../shared/client-ip";
import * as participants from "./routes/participants";

const post = (key: string, body: unknown) =>
  participants.POST(
    new Request("http://127.0.0.1/sdk/participants", {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json", [CLIENT_IP_HEADER]: "198.51.100.9" },
      body: JSON.stringify(body),
    }),
  );

describe("wallet changes through POST /sdk/participants", () => {
  it("are in the audit log, the API key as actor; a request that changes no wallet adds nothing", async () => {
    const b = await db.business.create({ data: { name: "Wallet audit", ownerId: `owner-${crypto.randomUUID()}` } });
    const key = await createApiKey(b.id, { environment: "TEST", name: "backend" });
    const first = "0x1111111111111111111111111111111111111111";
    const second = "0x2222222222222222222222222222222222222222";
    expect((await post(key.secret, { userId: "w-1", email: "w1@example.com" })).status).toBe(200);
    const created = (await (await post(key.secret, { userId: "w-1", walletAddress: first })).json()) as { participantId: string };
    expect((await post(key.secret, { userId: "w-1", walletAddress: first, name: "Same wallet" })).status).toBe(200);
    expect((await post(key.secret, { userId: "w-1", walletAddress: second })).status).toBe(200);
    expect((await post(key.secret, { userId: "w-1", walletAddress: null })).status).toBe(200);

    const log = await listAuditLog(b.id, listAuditLogInput.parse({}));
    expect(log.data.map((a) => [a.action, a.target, (a.before as { walletAddress: string | null }).walletAddress, (a.after as { walletAddress: string | null }).walletAddress])).toEqual([
      ["participants.wallet", `participantId:${created.participantId}`, second, null],
      ["participants.wallet", `participantId:${created.participantId}`, first, second],
      ["participants.wallet", `participantId:${created.participantId}`, null, first],
    ]);
    expect(log.data[0]).toMatchObject({ environment: "TEST", actor: { userId: null, email: null, apiKeyId: key.apiKeyId }, ipHash: expect.stringMatching(/^[0-9a-f]{32}$/) });
    // The entry names no personal data of the participant.
    expect(JSON.stringify(log)).not.toContain("w1@example.com");
    expect((await listAuditLog(b.id, listAuditLogInput.parse({ actor: key.apiKeyId }))).data).toHaveLength(3);
    expect(await verifyAuditLog(b.id)).toMatchObject({ ok: true, entries: 3 });
  });
});
