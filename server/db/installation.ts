// This installation's own secrets, kept in its database (one row): generated on first start, read
// whenever the database is opened, so every instance on one database agrees.
import { english, generateMnemonic } from "viem/accounts";
import { setInstallationTestMnemonic } from "../shared/installation";
import type { SqlRunner } from "./migrate";

/** Reads (creating it on first start) the installation's TEST deposit mnemonic and makes it current. */
export async function openInstallation(runner: SqlRunner): Promise<string> {
  // Concurrent first starts: the first insert wins, the others read its mnemonic.
  await runner.query(`INSERT INTO "Installation" ("id", "testDepositMnemonic") VALUES (1, $1) ON CONFLICT ("id") DO NOTHING`, [generateMnemonic(english)]);
  const { rows } = await runner.query(`SELECT "testDepositMnemonic" AS m FROM "Installation" WHERE "id" = 1`);
  const mnemonic = String(rows[0].m);
  setInstallationTestMnemonic(mnemonic);
  return mnemonic;
}
