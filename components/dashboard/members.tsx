"use client";
// Members: who can use this dashboard. The owner invites people by email; an invited person
// joins the business by signing up with that email.
import { useState, type FormEvent } from "react";
import { errorFor, fieldErrors, formError } from "../errors";
import { formatDate } from "../format";
import { Icon } from "../icons";
import { useMe } from "../shell";
import { useToast } from "../toast";
import { trpc } from "../trpc";
import { Badge, Button, Card, EmptyState, Field, Input, ListBody, Notice, PageHeader, Table, Td, Th } from "../ui";

function InviteForm() {
  const [email, setEmail] = useState("");
  const toast = useToast();
  const utils = trpc.useUtils();
  const add = trpc.members.add.useMutation({
    onSuccess: (m) => {
      setEmail("");
      utils.members.list.invalidate();
      toast("success", m.status === "INVITED" ? `Invitation recorded for ${m.email}` : `${m.email} added`);
    },
  });
  const errs = fieldErrors(add.error);
  const top = formError(add.error, ["email", "role"]);
  function submit(e: FormEvent) {
    e.preventDefault();
    add.mutate({ email: email.trim(), role: "MEMBER" });
  }
  return (
    <form onSubmit={submit} noValidate aria-label="Invite a member" className="space-y-3">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-start">
        <Field label="Email address" error={errorFor(errs, "email") ?? (top ?? undefined)} className="flex-1" hint="They join your business when they sign up with this email.">
          {(p) => <Input {...p} name="email" type="email" value={email} onChange={(e) => setEmail(e.target.value)} placeholder="colleague@example.com" maxLength={254} required />}
        </Field>
        <Button type="submit" loading={add.isPending} className="sm:mt-7">
          Invite member
        </Button>
      </div>
    </form>
  );
}

export function MembersPage() {
  const { isOwner, user } = useMe();
  const members = trpc.members.list.useQuery({});
  return (
    <>
      <PageHeader title="Members" description="People who can see this dashboard. Members can view data and review events; owner actions stay with the owner." />
      <div className="space-y-6">
        {isOwner ? (
          <Card title="Invite a member">
            <InviteForm />
          </Card>
        ) : (
          <Notice tone="info">Only the owner can invite members.</Notice>
        )}
        <Card title="Team" bodyClassName="p-5 pt-0">
          <ListBody loading={members.isLoading} error={members.error} onRetry={() => members.refetch()} isEmpty={!members.data?.data.length} label="members" rows={2} empty={
            <EmptyState icon={<Icon name="team" className="h-8 w-8" />} title="No members yet" />
          }>
            <Table label="Members">
              <thead>
                <tr>
                  <Th>Person</Th>
                  <Th>Role</Th>
                  <Th>Status</Th>
                  <Th>Since</Th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {(members.data?.data ?? []).map((m) => (
                  <tr key={m.memberId} data-testid="member-row">
                    <Td>
                      <div className="font-medium text-slate-900">
                        {m.name ?? m.email}
                        {m.userId === user.id && <span className="ml-2 text-xs font-normal text-slate-500">(you)</span>}
                      </div>
                      {m.name && <div className="text-xs text-slate-500">{m.email}</div>}
                    </Td>
                    <Td>
                      <Badge>{m.role}</Badge>
                    </Td>
                    <Td>
                      <Badge>{m.status}</Badge>
                    </Td>
                    <Td className="text-xs whitespace-nowrap">{formatDate(m.createdAt)}</Td>
                  </tr>
                ))}
              </tbody>
            </Table>
          </ListBody>
        </Card>
      </div>
    </>
  );
}
