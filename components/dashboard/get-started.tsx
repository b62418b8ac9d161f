"use client";
// Onboarding for a new owner, up to the first reward earned: a TEST key that works from servers,
// a participant's referral code, reward amounts, a funded TEST pool, a qualifying event, the
// reward. Each step is ticked from the real state (lists, config, balance), never from a click.
import Link from "next/link";
import { useState, useSyncExternalStore } from "react";

const noSubscription = () => () => {};
import { CodeBlock } from "../copy-button";
import { useEnvironment } from "../environment";
import { errorFor, fieldErrors, formError } from "../errors";
import { timeAgo } from "../format";
import { Icon } from "../icons";
import { useMe } from "../shell";
import { useToast } from "../toast";
import { trpc } from "../trpc";
import { Button, Card, cx, Notice, PageHeader, Spinner } from "../ui";
import { SecretReveal } from "./secret-reveal";
import { DashboardPriceProvider, Eth, EthAmountField } from "../money";

function Step({ n, title, done, children }: { n: number; title: string; done: boolean; children: React.ReactNode }) {
  return (
    <li className="relative flex gap-4">
      <span className={cx("grid h-8 w-8 shrink-0 place-items-center rounded-full text-sm font-semibold", done ? "bg-emerald-500 text-white" : "bg-indigo-100 text-indigo-700")} aria-hidden="true">
        {done ? <Icon name="check" className="h-4 w-4" /> : n}
      </span>
      <div className="min-w-0 flex-1 pb-8">
        <h2 className="text-base font-semibold text-slate-900">
          {title}
          {done && <span className="sr-only"> (done)</span>}
        </h2>
        <div className="mt-2 space-y-3 text-sm text-slate-600">{children}</div>
      </div>
    </li>
  );
}

/**
 * Snippets that run on a server (curl, Node): they need a key that accepts calls without a browser
 * Origin, i.e. one with no allowed origins (an origin-restricted key answers 403 there).
 */
function snippets(origin: string, key: string, referralCode = "THEIR_CODE", publishableKey = "rk_pub_test_…YOUR_PUBLISHABLE_KEY") {
  const participant = `curl -X POST ${origin}/sdk/participants \\
  -H "content-type: application/json" \\
  -H "x-api-key: ${key}" \\
  -d '{"userId":"user-alice","email":"alice@example.com","name":"Alice"}'
# → { "participantId": "…", "referralCode": "…" }: the code Alice shares`;
  const curl = `# 1. A friend signs up with Alice's code (synchronous: you pass your own user id)
curl -X POST ${origin}/sdk/referrals/apply \\
  -H "content-type: application/json" \\
  -H "x-api-key: ${key}" \\
  -d '{"referralCode":"${referralCode}","referredUserId":"user-bob","referredUserEmail":"bob@example.com","source":"curl"}'

# 2. The friend buys: a qualifying event pays the rewards
curl -X POST ${origin}/track \\
  -H "content-type: application/json" \\
  -H "x-api-key: ${key}" \\
  -d '{"eventName":"purchase","metadata":{"referredUserId":"user-bob","campaign":"launch"},"source":"curl"}'`;
  const js = `// Server-side (Node 18+, Deno, Bun, edge functions): keep the key out of browsers.
const res = await fetch("${origin}/track", {
  method: "POST",
  headers: { "content-type": "application/json", "x-api-key": process.env.REFERRAL_API_KEY ?? "${key}" },
  body: JSON.stringify({
    eventName: "purchase",
    metadata: { referredUserId: "user-bob", campaign: "launch" },
    source: "web",
  }),
});
console.log(await res.json()); // { success: true, processedSynchronously: true, rewards: [...] }`;
  const browser = `// In the browser: a PUBLISHABLE key only (restricted to your site's origins).
// It can track events and apply referrals; what it records never pays on its own.
await fetch("${origin}/track", {
  method: "POST",
  headers: { "content-type": "application/json", "x-api-key": "${publishableKey}" },
  body: JSON.stringify({ eventName: "page_view", source: "web" }),
});`;
  return { participant, curl, js, browser };
}

const positive = (eth: string | undefined) => !!eth && /[1-9]/.test(eth);

function AmountsForm({ referralRewardEth, bonusEth }: { referralRewardEth: string; bonusEth: string }) {
  const toast = useToast();
  const utils = trpc.useUtils();
  const [v, setV] = useState({ referralRewardEth: positive(referralRewardEth) ? referralRewardEth : "0.01", bonusEth: positive(bonusEth) ? bonusEth : "0.005" });
  const save = trpc.config.updateGeneral.useMutation({
    onSuccess: (c) => {
      utils.config.get.setData({ environment: "TEST" }, c);
      toast("success", "Test reward amounts saved");
    },
  });
  const errs = fieldErrors(save.error);
  return (
    <form
      aria-label="Test reward amounts"
      noValidate
      className="grid gap-3 sm:grid-cols-3 sm:items-end"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate({ environment: "TEST", referralRewardEth: v.referralRewardEth.trim(), bonusEth: v.bonusEth.trim() });
      }}
    >
      <EthAmountField label="Referral reward" error={errorFor(errs, "referralRewardEth")} value={v.referralRewardEth} onChange={(eth) => setV((x) => ({ ...x, referralRewardEth: eth }))} />
      <EthAmountField label="Bonus" error={errorFor(errs, "bonusEth")} value={v.bonusEth} onChange={(eth) => setV((x) => ({ ...x, bonusEth: eth }))} />
      <Button type="submit" variant="secondary" loading={save.isPending}>
        Save test amounts
      </Button>
    </form>
  );
}

/**
 * What the test program pays in: ETH, or the local chain's test USDC (offered when the TEST chain
 * is a local development node). Fixed once the pool has its first entry.
 */
function AssetChoice({ canChange }: { canChange: boolean }) {
  const toast = useToast();
  const utils = trpc.useUtils();
  const q = trpc.config.asset.useQuery({ environment: "TEST" });
  const save = trpc.config.updateAsset.useMutation({
    onSuccess: (a) => {
      utils.config.asset.setData({ environment: "TEST" }, a);
      void utils.config.invalidate();
      toast("success", `The test program pays in ${a.symbol}`);
    },
  });
  if (!q.data) return null;
  const a = q.data;
  const usdc = a.suggestedTokens[0];
  const options = [
    { value: "ETH", label: "ETH", words: "Referrers are paid in the chain's own coin; its value moves with the market. Gas comes out of the same pool." },
    ...(usdc ? [{ value: usdc.tokenAddress, label: usdc.symbol, words: `${usdc.name}: a dollar stablecoin, so a reward of 12.50 is worth 12.50 USD to the referrer. Payouts need a little ETH at the deposit address for gas, outside the pool.` }] : []),
  ];
  const current = a.asset === "ETH" ? "ETH" : (a.tokenAddress ?? "");
  return (
    <fieldset className="space-y-2" aria-label="What the test program pays in">
      <legend className="text-sm font-medium text-slate-900">Pay rewards in</legend>
      {options.map((o) => (
        <label key={o.value} className={cx("flex gap-3 rounded-md border p-3 text-sm", current.toLowerCase() === o.value.toLowerCase() ? "border-indigo-500 bg-indigo-50" : "border-slate-200")}>
          <input
            type="radio"
            name="asset"
            className="mt-1"
            checked={current.toLowerCase() === o.value.toLowerCase()}
            disabled={!canChange || a.locked || save.isPending}
            onChange={() => save.mutate(o.value === "ETH" ? { environment: "TEST", asset: "ETH" } : { environment: "TEST", asset: "ERC20", tokenAddress: o.value })}
          />
          <span>
            <strong>{o.label}</strong> <span className="text-slate-600">{o.words}</span>
          </span>
        </label>
      ))}
      {a.locked && <p className="text-xs text-slate-600">Fixed: the test pool already has entries in {a.symbol}, and a program&apos;s money stays in one asset.</p>}
      {save.error && <Notice tone="danger">{formError(save.error)}</Notice>}
    </fieldset>
  );
}

export function GetStartedPage() {
  const { isOwner, canChangeMoney, business } = useMe();
  const { setEnv } = useEnvironment();
  const toast = useToast();
  const utils = trpc.useUtils();
  const [secret, setSecret] = useState<string | null>(null);
  const origin = useSyncExternalStore(noSubscription, () => window.location.origin, () => "http://localhost:3000");
  // Each step reads the real state, and keeps polling until that state is reached.
  const poll = (done: boolean) => (done ? false : 3000);
  const keys = trpc.apiKeys.list.useQuery({});
  const testKeys = (keys.data?.data ?? []).filter((k) => k.environment === "TEST" && k.status === "ACTIVE");
  const serverKey = testKeys.find((k) => k.kind === "SECRET" && k.allowedOrigins.length === 0);
  const publishable = testKeys.find((k) => k.kind === "PUBLISHABLE");
  const participants = trpc.participants.list.useQuery({ environment: "TEST", limit: 1 }, { refetchInterval: (q) => poll(!!q.state.data?.data.length) });
  const config = trpc.config.get.useQuery({ environment: "TEST" });
  const balance = trpc.funding.balance.useQuery({ environment: "TEST" }, { refetchInterval: (q) => poll(positive(q.state.data?.balanceEth)) });
  const events = trpc.events.list.useQuery({ environment: "TEST", limit: 1 }, { refetchInterval: (q) => poll(!!q.state.data?.data.length) });
  const converted = (s?: { byStatus: Record<string, number> }) => !!s && s.byStatus.QUALIFIED + s.byStatus.REWARDED > 0;
  const stats = trpc.referrals.stats.useQuery({ environment: "TEST" }, { refetchInterval: (q) => poll(converted(q.state.data)) });
  const paid = trpc.rewards.list.useQuery({ environment: "TEST", status: "PAID", kind: "REFERRAL", limit: 1 }, { refetchInterval: (q) => poll(!!q.state.data?.data.length) });
  const create = trpc.apiKeys.create.useMutation({
    onSuccess: (k) => {
      setSecret(k.secret);
      setEnv("TEST");
      void utils.apiKeys.list.invalidate();
      toast("success", "Test key created");
    },
  });
  const firstEvent = events.data?.data[0];
  const participant = participants.data?.data[0];
  const reward = paid.data?.data[0];
  const g = config.data?.general;
  const done = {
    key: !!serverKey || !!secret,
    participant: !!participant,
    amounts: positive(g?.referralRewardEth) || positive(g?.bonusEth),
    funded: positive(balance.data?.balanceEth),
    qualifying: converted(stats.data),
    reward: !!reward,
  };
  const shownKey = secret ?? (serverKey ? `${serverKey.prefix}…YOUR_SECRET` : "rk_test_…");
  const { participant: participantSnippet, curl, js, browser } = snippets(origin, shownKey, participant?.referralCode, publishable ? `${publishable.prefix}…` : undefined);
  const link = (href: string, text: string) => (
    <Link className="font-medium text-indigo-700 underline hover:text-indigo-600" href={href}>
      {text}
    </Link>
  );

  return (
    <>
      <PageHeader title={`Welcome${business.name ? `, ${business.name}` : ""}`} description="Six steps to your first referral reward earned. Everything here uses test mode: test ETH on a local test network, never real money." />
      <Card>
        <ol>
          <Step n={1} title="Create a test API key for your server" done={done.key}>
            {secret ? (
              <SecretReveal secret={secret} />
            ) : serverKey ? (
              <p>
                Your test key {serverKey.name ? `“${serverKey.name}” ` : ""}({serverKey.prefix}…) works from servers. Its secret was shown when it was created; if you lost it, rotate it on the {link("/dashboard/api-keys", "API keys")} page.
              </p>
            ) : isOwner ? (
              <>
                {testKeys.length > 0 && (
                  <Notice tone="warning">Your test keys only accept calls from the websites listed on them, so a server (curl, Node) gets “origin not allowed”. Create a key for your server:</Notice>
                )}
                <p>Test keys start with <code className="font-mono">rk_test_</code> and only ever touch test data. This one is a secret (server) key.</p>
                <Button loading={create.isPending} onClick={() => create.mutate({ environment: "TEST", kind: "SECRET", name: "Getting started" })}>
                  Create test key
                </Button>
                {create.error && <Notice tone="danger">{formError(create.error)}</Notice>}
              </>
            ) : (
              <Notice tone="info">Ask the owner of {business.name} to create a test key for you.</Notice>
            )}
          </Step>
          <Step n={2} title="Give a customer a referral code" done={done.participant}>
            <p>Register the customer who will share a code. The answer carries their code.</p>
            <CodeBlock label="curl: register a participant" code={participantSnippet} />
            {participant && (
              <p data-testid="onboarding-participant">
                <strong>{participant.name ?? participant.email ?? participant.userId}</strong> shares the code <code className="font-mono">{participant.referralCode}</code>. {link("/dashboard/participants", "See participants")}
              </p>
            )}
          </Step>
          <Step n={3} title="Set the reward amounts" done={done.amounts}>
            <AssetChoice canChange={canChangeMoney} />
            {done.amounts ? (
              <p data-testid="onboarding-amounts">
                A referrer earns <Eth value={g!.referralRewardEth} />, the friend <Eth value={g!.bonusEth} /> (test). Change them under {link("/dashboard/configuration", "Configuration")}.
              </p>
            ) : (
              <>
                <p>Rewards are 0 until you set them. These amounts apply to test referrals only.</p>
                {g && (
                  <DashboardPriceProvider environment="TEST">
                    <AmountsForm referralRewardEth={g.referralRewardEth} bonusEth={g.bonusEth} />
                  </DashboardPriceProvider>
                )}
              </>
            )}
          </Step>
          <Step n={4} title="Fund the test pool" done={done.funded}>
            {done.funded ? (
              <p data-testid="onboarding-balance">The test pool holds <Eth value={balance.data!.balanceEth} />.</p>
            ) : (
              <p>Rewards are paid from a pool: with an empty pool they are refused. Send a free test deposit on the {link("/dashboard/balance", "Balance & funding")} page, then verify it.</p>
            )}
          </Step>
          <Step n={5} title="Send a qualifying event" done={done.qualifying}>
            <p>When the friend signs up with the code and then buys, the referral qualifies.</p>
            <CodeBlock label="curl" code={curl} />
            <CodeBlock label="JavaScript" code={js} />
            <p>
              From a web page, use a <strong>publishable</strong> key (<code className="font-mono">rk_pub_test_…</code>) created on the {link("/dashboard/api-keys", "API keys")} page with your
              site&apos;s origin. Never put a secret key in a browser.
            </p>
            <CodeBlock label="Browser (publishable key)" code={browser} />
            {firstEvent ? (
              <p data-testid="first-event">
                Latest test event: “{firstEvent.eventName}” {timeAgo(firstEvent.createdAt)} ({firstEvent.status.toLowerCase()}). {link("/dashboard/events", "Open events")}
              </p>
            ) : (
              <p className="flex items-center gap-2" role="status" aria-label="Waiting for the first test event">
                <Spinner className="h-4 w-4 text-indigo-600" /> Waiting for the first call with your test key…
              </p>
            )}
          </Step>
          <Step n={6} title="See the reward" done={done.reward}>
            {reward ? (
              <Notice tone="success" title="Your first referral reward was earned">
                <span data-testid="first-reward">
                  {reward.participant.name ?? reward.participant.email ?? reward.participant.referralCode} earned <Eth value={reward.amountEth} /> for a referral. It is paid out to their wallet once it is payable.
                </span>{" "}
                {link("/dashboard/rewards", "Open rewards")}
              </Notice>
            ) : (
              <p>The first referral reward earned shows here{!done.amounts ? " once reward amounts are set" : !done.funded ? " once the pool is funded" : ""}.</p>
            )}
          </Step>
        </ol>
      </Card>
    </>
  );
}
