"use client";
// The referrals one API key brought in (newest first, paged by cursor).
import { formatDateTime } from "../format";
import { combinePages, useCursors } from "../paging";
import { trpc, type RouterOutputs } from "../trpc";
import { Badge, Button, Card, DataList, EmptyState, Td, Th } from "../ui";

type ApiKey = RouterOutputs["apiKeys"]["list"]["data"][number];

export function KeyReferrals({ apiKey, onClose }: { apiKey: ApiKey; onClose: () => void }) {
  const { cursors, add } = useCursors(apiKey.apiKeyId);
  const q = combinePages(trpc.useQueries((t) => cursors.map((cursor) => t.apiKeys.referrals({ apiKeyId: apiKey.apiKeyId, limit: 25, ...(cursor ? { cursor } : {}) }))), add);
  const rows = q.rows;
  return (
    <Card
      title={`Referrals through ${apiKey.name ?? apiKey.prefix}`}
      description="Referrals recorded by /sdk/referrals/apply or /track with this key."
      actions={
        <Button variant="ghost" size="sm" onClick={onClose}>
          Close
        </Button>
      }
      bodyClassName="p-5 pt-0"
    >
      <DataList query={q} isEmpty={rows.length === 0} itemsLabel="referrals" skeleton={2} empty={
        <EmptyState title="No referrals through this key yet" />
      } label="Referrals of this key" head={
        <>
          <Th>Referrer</Th>
          <Th>Referred</Th>
          <Th>Status</Th>
          <Th>Source</Th>
          <Th>Created</Th>
        </>
      }>
        {rows.map((r) => (
          <tr key={r.referralId} data-testid="key-referral-row">
            <Td>
              <div className="font-mono text-xs">{r.referrer.referralCode}</div>
              <div className="text-xs text-slate-500">{r.referrer.email ?? r.referrer.userId ?? ""}</div>
            </Td>
            <Td>{r.referred.email ?? r.referred.userId ?? r.referred.referralCode}</Td>
            <Td>
              <Badge>{r.status}</Badge>
            </Td>
            <Td className="text-xs">{r.source ?? "—"}</Td>
            <Td className="text-xs whitespace-nowrap">{formatDateTime(r.createdAt)}</Td>
          </tr>
        ))}
      </DataList>
    </Card>
  );
}
