"use client";
// Referral links of one environment: where /r/:code leads, the query parameter that carries the
// code, and which click is credited when a visitor clicked several links.
import { useState, type FormEvent } from "react";
import { errorFor, fieldErrors, formError } from "../errors";
import { useToast } from "../toast";
import { trpc, type RouterOutputs } from "../trpc";
import { Button, Field, Input, Notice, Select } from "../ui";

type Config = RouterOutputs["config"]["get"];

/** `canChangeMoney`: where links lead and who a click credits are the owner's or an admin's to change. */
export function LinksForm({ config, canChangeMoney }: { config: Config; canChangeMoney: boolean }) {
  const env = config.environment;
  const toast = useToast();
  const utils = trpc.useUtils();
  const g = config.general;
  const [v, setV] = useState({ linkDestinationUrl: g.linkDestinationUrl ?? "", linkParam: g.linkParam, attribution: g.attribution });
  const update = trpc.config.updateGeneral.useMutation({
    onSuccess: (c) => {
      utils.config.get.setData({ environment: c.environment }, c);
      toast("success", "Link settings saved");
    },
  });
  const errs = fieldErrors(update.error);
  const top = formError(update.error, Object.keys(v));
  const set = (k: keyof typeof v) => (e: { target: { value: string } }) => setV((x) => ({ ...x, [k]: e.target.value }));
  function submit(e: FormEvent) {
    e.preventDefault();
    update.mutate({ environment: env, linkDestinationUrl: v.linkDestinationUrl.trim() || null, linkParam: v.linkParam.trim(), attribution: v.attribution });
  }
  return (
    <form onSubmit={submit} noValidate aria-label="Referral links" className="space-y-4">
      {top && <Notice tone="danger">{top}</Notice>}
      {!canChangeMoney && <Notice tone="info">Only the owner or an admin can change where referral links lead and which click is credited.</Notice>}
      <fieldset disabled={!canChangeMoney} className="grid gap-4 sm:grid-cols-2">
        <Field label="Link destination" error={errorFor(errs, "linkDestinationUrl")} hint={env === "LIVE" ? "Your landing page (https). Empty: links answer 404." : "Your landing page (http allowed in test). Empty: links answer 404."}>
          {(p) => <Input {...p} name="linkDestinationUrl" type="url" value={v.linkDestinationUrl} onChange={set("linkDestinationUrl")} placeholder="https://example.com/welcome" maxLength={2048} />}
        </Field>
        <Field label="Code parameter" error={errorFor(errs, "linkParam")} hint="Added to the destination with the code, e.g. ?ref=CODE">
          {(p) => <Input {...p} name="linkParam" value={v.linkParam} onChange={set("linkParam")} maxLength={32} />}
        </Field>
        <Field label="Attribution" error={errorFor(errs, "attribution")} hint="When your integration sends no click id (rts_click): which of the visitor's clicks today credits, the first or the last; a code sent keeps its referrer (only clicks on that referrer's link count). A click id sent always credits its own link.">
          {(p) => (
            <Select {...p} name="attribution" value={v.attribution} onChange={set("attribution")}>
              <option value="LAST_CLICK">Last click</option>
              <option value="FIRST_CLICK">First click</option>
            </Select>
          )}
        </Field>
      </fieldset>
      {canChangeMoney && (
        <div className="flex justify-end">
          <Button type="submit" loading={update.isPending}>Save link settings</Button>
        </div>
      )}
    </form>
  );
}
