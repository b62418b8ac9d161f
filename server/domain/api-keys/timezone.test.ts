// API-key expiry and the rotation grace are compared in UTC whatever the TimeZone of the
// database session: here the database default (PostgreSQL: ALTER DATABASE … SET TimeZone,
// before this file's first connection) or the session (PGlite: SET TimeZone) is set to a zone
// far from UTC, on both sides, and the answers must not move.
import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "../../db/client";
import { testBusiness } from "../../../tests/support/jobs-fixtures";
import { authenticateApiKey, createApiKey, rotateApiKey } from "./service";

const ZONES = ["America/Los_Angeles", "Pacific/Kiritimati"]; // UTC−8/−7 and UTC+14

beforeAll(async () => {
  const url = process.env.DATABASE_URL;
  if (url) {
    // PostgreSQL: the database's own default, as a server configured in another zone would have.
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const name = (await c.query("SELECT current_database() AS d")).rows[0].d as string;
    await c.query(`ALTER DATABASE "${name}" SET TimeZone = '${ZONES[0]}'`);
    await c.end();
  }
});

async function setSessionZone(zone: string) {
  // PGlite has one session: set it there. On PostgreSQL the pool's sessions are forced to UTC.
  if (!process.env.DATABASE_URL) await db.$executeRawUnsafe(`SET TimeZone = '${zone}'`);
}

describe("API key times in UTC whatever the TimeZone", () => {
  for (const zone of ZONES) {
    it(`expiry and rotation grace under ${zone}`, async () => {
      await setSessionZone(zone);
      const { businessId } = await testBusiness();
      // An expired key (1 minute ago) is refused; a key that expires in 1 minute works.
      const expired = await createApiKey(businessId, { environment: "TEST" });
      await db.apiKey.update({ where: { id: expired.apiKeyId }, data: { expiresAt: new Date(Date.now() - 60_000) } });
      expect(await authenticateApiKey(expired.secret)).toBeNull();
      const soon = await createApiKey(businessId, { environment: "TEST" });
      await db.apiKey.update({ where: { id: soon.apiKeyId }, data: { expiresAt: new Date(Date.now() + 60_000) } });
      expect(await authenticateApiKey(soon.secret)).not.toBeNull();

      // Rotation with a 60 s grace: the old secret works now…
      const k = await createApiKey(businessId, { environment: "TEST" });
      await rotateApiKey(businessId, k.apiKeyId, 60);
      expect(await authenticateApiKey(k.secret)).not.toBeNull();
      // …and not once the grace is over (moved 1 minute into the past).
      await db.apiKey.update({ where: { id: k.apiKeyId }, data: { previousExpiresAt: new Date(Date.now() - 60_000) } });
      expect(await authenticateApiKey(k.secret)).toBeNull();

      // What the database itself records as "now" for raw inserts is UTC too.
      const [row] = await db.$queryRaw<Array<{ skew: number }>>`SELECT abs(extract(epoch FROM ((now() AT TIME ZONE 'UTC') - ${new Date()}::timestamp)))::float AS skew`;
      expect(row.skew).toBeLessThan(60);
    });
  }
});
