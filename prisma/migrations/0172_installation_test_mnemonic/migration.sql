-- This installation's own secrets, one row: the mnemonic its TEST deposit addresses are derived
-- from, generated on first start (server/db/installation.ts), so that two installations on one
-- development chain never share a deposit address.
CREATE TABLE "Installation" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "testDepositMnemonic" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Installation_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "Installation_one_row" CHECK ("id" = 1)
);
