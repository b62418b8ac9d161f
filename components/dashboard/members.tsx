"use client";
// Members: who can use this dashboard. The owner invites people by email and sends them the
// one-time invitation link (it expires; a new link can be made), removes members, cancels
// invitations and can hand the business over to another member.
import { useState, type FormEvent } from "react";
import { CopyButton } from "../copy-button";
import { errorFor, fieldErrors, formError } from "../errors";
import { formatDate } from "../format";
import { Icon } from "../icons";
import { ROLE_WORDS, useMe } from "../shell";
import { useToast } from "../toast";
import { trpc, type RouterOutputs } from "../trpc";
import { Badge, Button, Card, ConfirmDialog, DataList, EmptyState, Field, Input, Notice, PageHeader, Select, Td, Th } from "../ui";

type Member = RouterOutputs["members"]["list"]["data"][number];

/** The invitation link, shown right after it was made (it is never shown again). */
function InviteLink({ member, onDone }: { member: { email: string; inviteUrl: string | null; inviteExpiresAt: string | null }; onDone: () => void }) {
  if (!member.inviteUrl) return null;
  return (
    <div className="space-y-2 rounded-lg bg-indigo-50 p-4 ring-1 ring-indigo-100" data-testid="invite-link">
      <p className="text-sm font-medium text-indigo-950">Send this link to {member.email}</p>
      <div className="flex flex-col gap-2 sm:flex-row sm:items-center">
        <code className="min-w-0 flex-1 rounded bg-white px-2 py-1.5 font-mono text-xs break-all text-slate-800 ring-1 ring-slate-200" data-testid="invite-url">
          {member.inviteUrl}
        </code>
        <CopyButton text={member.inviteUrl} label="Copy link" />
      </div>
      <p className="text-xs text-slate-700">
        It works once and until {formatDate(member.inviteExpiresAt)}. It is shown only now; you can make a new one from the team list.{" "}
        <button type="button" className="font-medium text-indigo-800 underline" onClick={onDone}>
          Hide
        </button>
      </p>
    </div>
  );
}

const ROLE_HINT = "Admins can also change reward amounts, tiers and referral rules and record events; members read and review.";

function InviteForm({ onInvited }: { onInvited: (m: RouterOutputs["members"]["add"]) => void }) {
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<"MEMBER" | "ADMIN">("MEMBER");
  const toast = useToast();
  const utils = trpc.useUtils();
  const add = trpc.members.add.useMutation({
    onSuccess: (m) => {
      setEmail("");
      void utils.members.list.invalidate();
      toast("success", m.status === "INVITED" ? `Invitation created for ${m.email}: send them the link` : `${m.email} added`);
      onInvited(m);
    },
  });
  const errs = fieldErrors(add.error);
  const top = formError(add.error, ["email", "role"]);
  function submit(e: FormEvent) {
    e.preventDefault();
    add.mutate({ email: email.trim(), role });
  }
  return (
    <form onSubmit={submit} noValidate aria-label="Invite a member" className="space-y-3">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-start">
        <Field label="Email address" error={errorFor(errs, "email") ?? (top ?? undefined)} className="flex-1" hint="You get a link to send them; they join when they sign up through it.">
          {(p) => <Input {...p} name="email" type="email" value={email} onChange={(e) => setEmail(e.target.value)} placeholder="colleague@example.com" maxLength={254} required />}
        </Field>
        <Field label="Role" error={errorFor(errs, "role")} className="sm:w-40">
          {(p) => (
            <Select {...p} name="role" value={role} onChange={(e) => setRole(e.target.value === "ADMIN" ? "ADMIN" : "MEMBER")}>
              <option value="MEMBER">Member</option>
              <option value="ADMIN">Admin</option>
            </Select>
          )}
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
  const utils = trpc.useUtils();
  const toast = useToast();
  const [link, setLink] = useState<RouterOutputs["members"]["add"] | null>(null);
  const [removing, setRemoving] = useState<Member | null>(null);
  const [handingOver, setHandingOverState] = useState<Member | null>(null);
  // The owner's password, asked again for the transfer; forgotten whenever the dialog closes.
  const [ownerPassword, setOwnerPassword] = useState("");
  const setHandingOver = (m: Member | null) => {
    setHandingOverState(m);
    setOwnerPassword("");
  };
  const renew = trpc.members.renewInvite.useMutation({
    onSuccess: (m) => {
      setLink(m);
      void utils.members.list.invalidate();
      toast("success", `New invitation link for ${m.email}`);
    },
    onError: (e) => toast("error", formError(e) ?? "Could not make a new link"),
  });
  const remove = trpc.members.remove.useMutation({
    onSuccess: (m) => {
      setRemoving(null);
      if (link?.email === m.email) setLink(null);
      void utils.members.list.invalidate();
      toast("success", m.status === "INVITED" ? `Invitation for ${m.email} cancelled` : `${m.name ?? m.email} removed`);
    },
  });
  const changeRole = trpc.members.changeRole.useMutation({
    onSuccess: (m) => {
      void utils.members.list.invalidate();
      toast("success", `${m.name ?? m.email} is now ${m.role === "ADMIN" ? "an admin" : "a member"}`);
    },
    onError: (e) => toast("error", formError(e) ?? "Could not change the role"),
  });
  const transfer = trpc.members.transferOwnership.useMutation({
    onSuccess: () => {
      setHandingOver(null);
      void utils.members.list.invalidate();
      void utils.me.get.invalidate();
      toast("success", "Ownership transferred: you are now a member");
    },
  });
  return (
    <>
      <PageHeader title="Members" description="People who can see this dashboard. Members view data and review events; admins also change what the pool pays; keys, funding, payouts and the team stay with the owner." />
      <div className="space-y-6">
        {isOwner ? (
          <Card title="Invite a member" description={ROLE_HINT}>
            <div className="space-y-4">
              <InviteForm onInvited={(m) => setLink(m.inviteUrl ? m : null)} />
              {link && <InviteLink member={link} onDone={() => setLink(null)} />}
            </div>
          </Card>
        ) : (
          <Notice tone="info">Only the owner can invite members.</Notice>
        )}
        <Card title="Team" bodyClassName="p-5 pt-0">
          <DataList query={members} isEmpty={!members.data?.data.length} itemsLabel="members" skeleton={2} empty={
            <EmptyState icon={<Icon name="team" className="h-8 w-8" />} title="No members yet" />
          } label="Members" head={
            <>
              <Th>Person</Th>
              <Th>Role</Th>
              <Th>Status</Th>
              <Th>Since</Th>
              {isOwner && <Th className="text-right">Actions</Th>}
            </>
          }>
            {(members.data?.data ?? []).map((m) => (
              <tr key={m.memberId} data-testid="member-row">
                <Td>
                  <div className="font-medium break-all text-slate-900">
                    {m.name ?? m.email}
                    {m.userId === user.id && <span className="ml-2 text-xs font-normal text-slate-600">(you)</span>}
                  </div>
                  {m.name && <div className="text-xs break-all text-slate-600">{m.email}</div>}
                </Td>
                <Td>
                  <Badge color={m.role === "MEMBER" ? "gray" : "indigo"}>{ROLE_WORDS[m.role]}</Badge>
                </Td>
                <Td>
                  <Badge>{m.status}</Badge>
                  {m.status === "INVITED" && m.inviteExpiresAt && (
                    <div className="mt-1 text-xs whitespace-nowrap text-slate-600">{new Date(m.inviteExpiresAt) > new Date() ? `Link valid until ${formatDate(m.inviteExpiresAt)}` : "Link expired"}</div>
                  )}
                </Td>
                <Td className="text-xs whitespace-nowrap">{formatDate(m.createdAt)}</Td>
                {isOwner && (
                  <Td className="text-right">
                    {m.role !== "OWNER" && (
                      <div className="flex flex-wrap justify-end gap-1.5">
                        <Button size="sm" variant="secondary" loading={changeRole.isPending && changeRole.variables?.memberId === m.memberId} onClick={() => changeRole.mutate({ memberId: m.memberId, role: m.role === "ADMIN" ? "MEMBER" : "ADMIN" })}>
                          {m.role === "ADMIN" ? "Make member" : "Make admin"}
                        </Button>
                        {m.status === "INVITED" ? (
                          <>
                            <Button size="sm" variant="secondary" loading={renew.isPending && renew.variables?.memberId === m.memberId} onClick={() => renew.mutate({ memberId: m.memberId })}>
                              New link
                            </Button>
                            <Button size="sm" variant="secondary" className="!text-rose-700" onClick={() => setRemoving(m)}>
                              Cancel invitation
                            </Button>
                          </>
                        ) : (
                          <>
                            <Button size="sm" variant="secondary" onClick={() => setHandingOver(m)}>
                              Make owner
                            </Button>
                            <Button size="sm" variant="secondary" className="!text-rose-700" onClick={() => setRemoving(m)}>
                              Remove
                            </Button>
                          </>
                        )}
                      </div>
                    )}
                  </Td>
                )}
              </tr>
            ))}
          </DataList>
        </Card>
      </div>
      {removing && (
        <ConfirmDialog
          onClose={() => setRemoving(null)}
          title={removing.status === "INVITED" ? "Cancel this invitation?" : "Remove this member?"}
          cancelLabel="Keep"
          confirmLabel={removing.status === "INVITED" ? "Cancel invitation" : "Remove member"}
          pending={remove.isPending}
          error={formError(remove.error)}
          onConfirm={() => remove.mutate({ memberId: removing.memberId })}
        >
          <p>{removing.status === "INVITED" ? `The link sent to ${removing.email} stops working.` : `${removing.name ?? removing.email} loses access to this dashboard at once.`}</p>
        </ConfirmDialog>
      )}
      {handingOver && (
        <ConfirmDialog
          onClose={() => setHandingOver(null)}
          title="Transfer ownership?"
          confirmLabel="Transfer ownership"
          pending={transfer.isPending}
          confirmDisabled={!ownerPassword}
          error={formError(transfer.error)}
          onConfirm={() => transfer.mutate({ memberId: handingOver.memberId, password: ownerPassword })}
        >
          <p>
            {handingOver.name ?? handingOver.email} becomes the owner: API keys, funding, spend limits and members are theirs to manage. You stay on the team as a member.
          </p>
          <Field label="Your password" hint="Confirms that it is you handing the business over.">
            {(p) => <Input {...p} name="password" type="password" autoComplete="current-password" value={ownerPassword} onChange={(e) => setOwnerPassword(e.target.value)} maxLength={128} />}
          </Field>
        </ConfirmDialog>
      )}
    </>
  );
}
