"use client";
// Onboarding for a new owner: create a TEST key, send a first event with curl or JavaScript
// (snippets carry their key), and see it arrive.
import Link from "next/link";
import { useEffect, useState } from "react";
import { CodeBlock } from "../copy-button";
import { useEnvironment } from "../environment";
import { formError } from "../errors";
import { timeAgo } from "../format";
import { Icon } from "../icons";
import { useMe } from "../shell";
import { useToast } from "../toast";
import { trpc } from "../trpc";
import { Button, Card, cx, Notice, PageHeader, Spinner } from "../ui";
import { SecretReveal } from "./secret-reveal";

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

export function snippets(origin: string, key: string) {
  const curl = `curl -X POST ${origin}/track \\
  -H "content-type: application/json" \\
  -H "x-api-key: ${key}" \\
  -d '{"eventName":"signup","metadata":{"campaign":"launch"},"source":"curl"}'`;
  const js = `// Server-side (Node 18+, Deno, Bun, edge functions)
const res = await fetch("${origin}/track", {
  method: "POST",
  headers: { "content-type": "application/json", "x-api-key": process.env.REFERRAL_API_KEY ?? "${key}" },
  body: JSON.stringify({
    eventName: "signup",
    // referrer: "<the referral code your user arrived with>",
    metadata: { campaign: "launch" },
    source: "web",
  }),
});
console.log(await res.json()); // { success: true, processedSynchronously: true, ... }`;
  return { curl, js };
}

export function GetStartedPage() {
  const { isOwner, business } = useMe();
  const { setEnv } = useEnvironment();
  const toast = useToast();
  const utils = trpc.useUtils();
  const [secret, setSecret] = useState<string | null>(null);
  const [origin, setOrigin] = useState("http://localhost:3000");
  useEffect(() => setOrigin(window.location.origin), []);
  const keys = trpc.apiKeys.list.useQuery({});
  const testKeys = (keys.data?.data ?? []).filter((k) => k.environment === "TEST" && k.status === "ACTIVE");
  // Poll for the first TEST event until it arrives.
  const events = trpc.events.list.useQuery({ environment: "TEST", limit: 1 }, { refetchInterval: (q) => (q.state.data?.data.length ? false : 2500) });
  const firstEvent = events.data?.data[0];
  const create = trpc.apiKeys.create.useMutation({
    onSuccess: (k) => {
      setSecret(k.secret);
      setEnv("TEST");
      utils.apiKeys.list.invalidate();
      toast("success", "Test key created");
    },
  });
  const hasKey = testKeys.length > 0 || !!secret;
  const shownKey = secret ?? (testKeys[0] ? `${testKeys[0].prefix}…YOUR_SECRET` : "rk_test_…");
  const { curl, js } = snippets(origin, shownKey);

  return (
    <>
      <PageHeader title={`Welcome${business.name ? `, ${business.name}` : ""}`} description="Three steps to your first tracked referral event. Everything here uses TEST mode: no real ETH moves." />
      <Card>
        <ol>
          <Step n={1} title="Create a test API key" done={hasKey}>
            {secret ? (
              <SecretReveal secret={secret} />
            ) : testKeys.length > 0 ? (
              <p>
                You have {testKeys.length} test key{testKeys.length > 1 ? "s" : ""} ({testKeys.map((k) => k.prefix).join(", ")}). Its secret was shown when it was created; if you lost it, rotate it on the{" "}
                <Link className="font-medium text-indigo-600 hover:underline" href="/dashboard/api-keys">
                  API keys
                </Link>{" "}
                page.
              </p>
            ) : isOwner ? (
              <>
                <p>Test keys start with <code className="font-mono">rk_test_</code> and only ever touch test data.</p>
                <Button loading={create.isPending} onClick={() => create.mutate({ environment: "TEST", name: "Getting started" })}>
                  Create test key
                </Button>
                {create.error && <Notice tone="danger">{formError(create.error)}</Notice>}
              </>
            ) : (
              <Notice tone="info">Ask the owner of {business.name} to create a test key for you.</Notice>
            )}
          </Step>
          <Step n={2} title="Send your first event" done={!!firstEvent}>
            <p>Call <code className="font-mono">POST /track</code> from your backend with the key in the <code className="font-mono">x-api-key</code> header.</p>
            <CodeBlock label="curl" code={curl} />
            <CodeBlock label="JavaScript" code={js} />
          </Step>
          <Step n={3} title="See it arrive" done={!!firstEvent}>
            {firstEvent ? (
              <Notice tone="success" title="Your integration is talking to us">
                <span data-testid="first-event">
                  “{firstEvent.eventName}” arrived {timeAgo(firstEvent.createdAt)} ({firstEvent.status.toLowerCase()}).
                </span>{" "}
                <Link className="font-medium underline" href="/dashboard/events">
                  Open events
                </Link>
              </Notice>
            ) : (
              <p className="flex items-center gap-2" role="status">
                <Spinner className="h-4 w-4 text-indigo-600" /> Waiting for the first call with your test key…
              </p>
            )}
          </Step>
        </ol>
      </Card>
    </>
  );
}
