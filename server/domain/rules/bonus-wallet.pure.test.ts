// bonusRequiresWallet in the rules core (vitest project "pure"): with it on, a referred customer
// without a wallet when the qualifying event is decided gets no bonus; the referrer is paid as before.
import { describe, expect, it } from "vitest";
import { apply, baseConfig, ids, NOW, person, event, stateOf, store, type Store } from "../../../tests/support/rules-model";
import { bonusGrantable } from "./bonus-wallet";
import { decide, type RuleItem } from "./decide";

const gen = ids();
function kindsPaid(s: Store, items: RuleItem[]) {
  const d = decide(stateOf(s, items, NOW), items, NOW, gen);
  apply(s, d);
  const o = d.outcomes[0];
  if (o.kind !== "event") throw new Error(`not an event outcome: ${o.kind}`);
  return o.rewards.map((r) => [r.kind, r.participantId === "ann" ? "referrer" : "customer"]);
}

describe("bonusRequiresWallet", () => {
  it("the rule: off grants; on grants only to a customer with a wallet", () => {
    expect(bonusGrantable({}, { walletAddress: null })).toBe(true);
    expect(bonusGrantable({ bonusRequiresWallet: false }, { walletAddress: null })).toBe(true);
    expect(bonusGrantable({ bonusRequiresWallet: true }, { walletAddress: null })).toBe(false);
    expect(bonusGrantable({ bonusRequiresWallet: true }, undefined)).toBe(false);
    expect(bonusGrantable({ bonusRequiresWallet: true }, { walletAddress: "0x8ba1f109551bd432803012645ac136ddd64dba72" })).toBe(true);
  });

  it("off (the default): a new customer without a wallet gets the bonus", () => {
    expect(kindsPaid(store(), [event({ referrer: "ANN", email: "bob@example.com" })])).toEqual([["REFERRAL", "referrer"], ["BONUS", "customer"]]);
  });

  it("on: no bonus to a customer without a wallet, the referrer still paid; a customer with a wallet gets it", () => {
    const s = store({ cfg: baseConfig({ bonusRequiresWallet: true }) });
    expect(kindsPaid(s, [event({ referrer: "ANN", email: "bob@example.com" })])).toEqual([["REFERRAL", "referrer"]]);
    s.participants.push(person("cy", { email: "cy@example.com", walletAddress: "0x70997970c51812dc3a010c7d01b50e0d17dc79c8" }));
    expect(kindsPaid(s, [event({ referrer: "ANN", email: "cy@example.com" })])).toEqual([["REFERRAL", "referrer"], ["BONUS", "customer"]]);
  });
});
