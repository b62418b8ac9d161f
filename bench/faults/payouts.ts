// The payout process killed at each step of a payout, repeatedly, during a run paying many
// participants: a JSON-RPC proxy in front of the chain watches the app's calls and SIGKILLs the
// app (a) when it broadcasts a recorded transaction, before the node sees it; (b) right after
// the node accepted the broadcast, before the answer reaches the app; (c) when the app asks for
// the receipt of a broadcast transaction (sent, not confirmed). The app restarts on the same
// database and the owner runs payouts again, until every participant is paid. Each wallet must
// then hold exactly what it earned, and the sender have used one nonce per payout.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createPublicClient, http as viemHttp, parseEther, type Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { startApp, type RunningApp } from "../../tests/support/app";
import { referredEvent, shop, sleep, type Shop } from "./kit";

type Step = "before-broadcast" | "broadcast-unanswered" | "awaiting-confirmation";
const STEPS: Step[] = ["before-broadcast", "broadcast-unanswered", "awaiting-confirmation"];

/** A JSON-RPC proxy to `rpc` that calls `onStep` at each payout step and, when it answers true, drops the call (the app is being killed). */
async function killingProxy(rpc: string, onStep: (step: Step) => Promise<boolean>) {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString("utf8");
        const calls = [JSON.parse(body) as { method?: string }].flat();
        const has = (m: string) => calls.some((c) => c.method === m);
        if (has("eth_sendRawTransaction") && (await onStep("before-broadcast"))) return void res.destroy();
        if (has("eth_getTransactionReceipt") && (await onStep("awaiting-confirmation"))) return void res.destroy();
        let text: string;
        try {
          text = await (await fetch(rpc, { method: "POST", headers: { "content-type": "application/json" }, body })).text();
        } catch {
          return void res.destroy();
        }
        if (has("eth_sendRawTransaction") && (await onStep("broadcast-unanswered"))) return void res.destroy();
        res.writeHead(200, { "content-type": "application/json" }).end(text);
      })();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const close = () => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  };
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close };
}

/**
 * `participants` referrers with fresh wallets each earn `rewardEth` once (synchronous /track);
 * then payouts run while the app is killed at a payout step about every `killEvery` broadcasts
 * (the steps in turn). `dbEnv` is the app's database (DATABASE_URL or PGLITE_DIR).
 */
export async function killPayouts(dbEnv: Record<string, string>, rpc: string, port: number, participants: number, killEvery: number, rewardEth = "0.01") {
  let app: RunningApp | null = null;
  let killing: Promise<void> | null = null;
  let broadcasts = 0;
  let nextKillAt = 1 + Math.floor(Math.random() * killEvery);
  const kills: Record<Step, number> = { "before-broadcast": 0, "broadcast-unanswered": 0, "awaiting-confirmation": 0 };
  let armed = false;
  const onStep = async (step: Step) => {
    if (step === "broadcast-unanswered") broadcasts++;
    if (!armed || killing || broadcasts < nextKillAt || step !== STEPS[(kills[STEPS[0]] + kills[STEPS[1]] + kills[STEPS[2]]) % 3]) return false;
    kills[step]++;
    nextKillAt = broadcasts + 1 + Math.floor(Math.random() * killEvery);
    const dying = app!;
    killing = dying.kill();
    await killing;
    return true;
  };
  const proxy = await killingProxy(rpc, onStep);
  const env = { ...dbEnv, CHAIN_RPC_URL_TEST: proxy.url, PAYOUT_INTERVAL_MS: "0" };
  const boot = async () => {
    app = await startApp(env, port);
    killing = null;
  };
  const wallets: Address[] = Array.from({ length: participants }, () => privateKeyToAccount(generatePrivateKey()).address);
  await boot();
  let s: Shop;
  try {
    s = await shop(app!.url, rpc, { processing: "SYNC", rewardEth, fundEth: String(Number(rewardEth) * participants * 2 + 1), referrers: participants, wallets });
    for (let i = 0; i < participants; i++) {
      const r = await s.sdk("POST", "/track", referredEvent(s, `payout-${i}-${Date.now()}`, i));
      if (r.status !== 200) throw new Error(`track ${r.status} ${JSON.stringify(r.body)}`);
    }
    armed = true;
    const t0 = Date.now();
    let runs = 0;
    let restarts = 0;
    for (;;) {
      runs++;
      const r = await s.call("POST", "/business/payouts/run", { environment: "TEST" });
      // Set by onStep while this call was in flight (the narrowing of `killing` does not see that).
      const dying = killing as Promise<void> | null;
      if (dying) {
        await dying;
        await boot();
        restarts++;
        continue;
      }
      // A run longer than the client's 30 s wait goes on in the app; asking again is safe (a run recovers recorded payouts first).
      if (r.status === 0) continue;
      if (r.status !== 200) throw new Error(`payouts/run ${r.status} ${JSON.stringify(r.body)}`);
      const list = await s.call("GET", "/business/payouts?environment=TEST&limit=100");
      const open = ((list.body?.data as Array<{ status: string }>) ?? []).filter((p) => p.status === "PENDING" || p.status === "SENT").length;
      const queue = await s.call("GET", "/business/payouts/queue?environment=TEST");
      const owed = ((queue.body?.data as unknown[]) ?? []).length;
      if (!open && !owed) break;
      if (runs > participants * 3 + 20) throw new Error(`payouts did not finish: ${open} open, ${owed} owed`);
      await sleep(200);
    }
    armed = false;
    const client = createPublicClient({ transport: viemHttp(rpc) });
    const expected = parseEther(rewardEth);
    const balances = await Promise.all(wallets.map((w) => client.getBalance({ address: w })));
    const list = await s.call("GET", "/business/payouts?environment=TEST&limit=100&status=CONFIRMED");
    const confirmed = ((list.body?.data as Array<{ fromAddress?: string }>) ?? []).length;
    const balance = await s.call("GET", "/business/balance?environment=TEST");
    const nonce = await client.getTransactionCount({ address: balance.body?.depositAddress as Address });
    return {
      shop: s,
      app: app!,
      closeProxy: proxy.close,
      participants,
      kills,
      restarts,
      runs,
      ms: Date.now() - t0,
      walletsPaidExactlyOnce: balances.filter((b) => b === expected).length,
      walletsPaidTwice: balances.filter((b) => b > expected).length,
      walletsUnpaid: balances.filter((b) => b === 0n).length,
      confirmedPayouts: confirmed,
      senderNonce: nonce,
    };
  } catch (e) {
    await (app as RunningApp | null)?.stop().catch(() => {});
    await proxy.close();
    throw e;
  } finally {
    armed = false;
  }
}
