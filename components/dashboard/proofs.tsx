"use client";
// Proofs of liabilities of the selected environment: each published proof with its status
// (covered or not), what it states, its public page, and how anyone verifies one (docs/trust.md).
import { useAmountText } from "../money";
import { amountOf } from "@/server/shared/asset";
import { useEnvironment } from "../environment";
import { contractError } from "../errors";
import { formatDateTime } from "../format";
import { combinePages, useCursors } from "../paging";
import { Icon } from "../icons";
import { useMe } from "../shell";
import { useToast } from "../toast";
import { trpc } from "../trpc";
import { Badge, Button, Card, DataList, EmptyState, PageHeader, Td, Th } from "../ui";

const REASON = { MANUAL: "Published by hand", PAYOUT: "After a payout run", DAILY: "Daily" } as const;

function PublishButton() {
  const { env } = useEnvironment();
  const toast = useToast();
  const utils = trpc.useUtils();
  const publish = trpc.proofs.create.useMutation({
    onSuccess: () => {
      toast("success", "Proof published");
      void utils.proofs.list.invalidate();
    },
    onError: (e) => toast("error", contractError(e)?.message ?? "The proof could not be published"),
  });
  return (
    <Button size="sm" loading={publish.isPending} onClick={() => publish.mutate({ environment: env })}>
      Publish a proof now
    </Button>
  );
}

export function ProofsPage() {
  const formatEth = useAmountText();
  const { env } = useEnvironment();
  const { isOwner, business } = useMe();
  const { cursors, add } = useCursors(env);
  const q = combinePages(trpc.useQueries((t) => cursors.map((cursor) => t.proofs.list({ environment: env, limit: 20, ...(cursor ? { cursor } : {}) }))), add);
  const latest = `/proofs/${business.businessId}/${env}/latest`;
  return (
    <>
      <PageHeader
        title="Proofs"
        description="Signed statements that your deposit address held at least what your participants are owed, published after payout runs and daily. Anyone can check them."
        actions={isOwner ? <PublishButton /> : undefined}
      />
      <div className="space-y-6">
        <Card title="Published proofs" bodyClassName="p-5 pt-0">
          <DataList
            query={q}
            isEmpty={!q.rows.length}
            itemsLabel="proofs"
            skeleton={3}
            empty={<EmptyState icon={<Icon name="shield" className="h-8 w-8" />} title="No proof yet">A proof is published after each payout run and once a day for a funded pool.</EmptyState>}
            label="Published proofs"
            head={
              <>
                <Th>Published</Th>
                <Th>Status</Th>
                <Th className="text-right">Owed</Th>
                <Th className="text-right">Pool balance</Th>
                <Th className="text-right">Participants</Th>
                <Th>Block</Th>
                <Th>Public page</Th>
              </>
            }
          >
            {q.rows.map((p, i) => (
              <tr key={p.proofId} data-testid="proof-row">
                <Td className="text-xs whitespace-nowrap">
                  {formatDateTime(p.createdAt)}
                  <div className="text-slate-500">{REASON[p.reason]}</div>
                </Td>
                <Td>
                  <span data-testid="proof-status">{p.covered ? <Badge color="green">Covered</Badge> : <Badge color="red">Not covered</Badge>}</span>
                  {i === 0 && <div className="mt-1 text-xs text-slate-500">Latest</div>}
                </Td>
                <Td className="text-right whitespace-nowrap">{formatEth(amountOf(p.totalOwedWei, p.asset))}</Td>
                <Td className="text-right whitespace-nowrap">{formatEth(amountOf(p.poolBalanceWei, p.asset))}</Td>
                <Td className="text-right">{p.participants}</Td>
                <Td className="font-mono text-xs">{p.blockNumber}</Td>
                <Td>
                  <a className="text-sm font-medium text-indigo-700 underline" href={`/proofs/${p.businessId}/${p.environment}/${p.proofId}`} target="_blank" rel="noreferrer">
                    Open<span className="sr-only"> the proof of {formatDateTime(p.createdAt)}</span>
                  </a>
                </Td>
              </tr>
            ))}
          </DataList>
        </Card>
        <Card title="How to verify a proof" description="Nothing here needs to trust this service.">
          <ol className="list-decimal space-y-3 pl-5 text-sm text-slate-700">
            <li>
              The latest proof is public at{" "}
              <a className="font-mono break-all text-indigo-700 underline" href={latest} target="_blank" rel="noreferrer" data-testid="proof-latest-link">
                {latest}
              </a>
              : a page in a browser, JSON for any other client. Share it with your participants.
            </li>
            <li>Anyone can read the deposit address&apos;s balance at the proof&apos;s block from their own node and compare it with what is owed.</li>
            <li>
              A participant takes their leaf and path from the referral portal and checks them with the SDK:
              <pre className="mt-2 rounded-lg bg-slate-900 p-3 text-xs break-all whitespace-pre-wrap text-slate-50">
                <code>{`import { verifyLiabilityProof } from "@referral-tracking/sdk";
const verdict = await verifyLiabilityProof({ proof, leaf, path, rpcUrl, expectedSigner });`}</code>
              </pre>
            </li>
            <li>
              The ledger head in a proof is checked against the books with <code className="font-mono">npm run ledger:verify</code> on the ledger&apos;s JSON Lines export.
            </li>
          </ol>
        </Card>
      </div>
    </>
  );
}
