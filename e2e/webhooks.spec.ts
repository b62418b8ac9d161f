// The Webhooks page in a real browser: add an endpoint (secret shown once), send a test event to
// a real local receiver and read it in the delivery log, retry it, rotate the secret, disable.
import { expect, test } from "@playwright/test";
import { Webhook } from "standardwebhooks";
import { startReceiver } from "../tests/support/webhook-receiver";
import { signUpInBrowser, snap, uniqueEmail } from "./support";

test("owner adds an endpoint, tests it, reads and retries deliveries, rotates and disables it", async ({ page }) => {
  const rx = await startReceiver();
  try {
    await signUpInBrowser(page, { email: uniqueEmail("hooks"), businessName: "Hook Shop" });
    await expect(page).toHaveURL(/\/dashboard\/get-started$/);
    await page.getByRole("link", { name: "Webhooks" }).first().click();
    await expect(page.getByText("No test endpoints yet")).toBeVisible();
    await page.getByRole("button", { name: "Add endpoint" }).first().click();
    const form = page.getByRole("form", { name: "Add webhook endpoint" });
    await form.getByLabel("Endpoint URL").fill(`${rx.url}/e2e`);
    await form.getByLabel("Description (optional)").fill("CRM sync");
    await form.getByRole("button", { name: "Add endpoint" }).click();
    const secretEl = page.getByTestId("api-key-secret").last();
    await expect(secretEl).toHaveText(/^whsec_/);
    const secret = (await secretEl.textContent())!.trim();
    await snap(page, "webhooks");

    const row = page.getByTestId("webhook-row");
    await expect(row).toHaveCount(1);
    await row.getByRole("button", { name: "Send test" }).click();
    const got = await rx.waitFor(1);
    expect(new Webhook(secret).verify(got[0].body, got[0].headers)).toMatchObject({ type: "webhook.test" });

    await row.getByRole("button", { name: "Deliveries" }).click();
    const delivery = page.getByTestId("webhook-delivery-row");
    await expect(delivery.first()).toContainText("webhook.test");
    await expect(delivery.first()).toContainText("200");
    await delivery.first().getByRole("button", { name: "Retry" }).click();
    await rx.waitFor(2);
    expect(rx.received[1].headers["webhook-id"]).toBe(rx.received[0].headers["webhook-id"]);
    await expect(delivery).toHaveCount(2, { timeout: 20_000 });
    await snap(page, "webhooks-deliveries");

    await row.getByRole("button", { name: "Rotate secret" }).click();
    const dialog = page.getByRole("dialog", { name: "Rotate signing secret" });
    await dialog.getByRole("button", { name: "Rotate secret" }).click();
    await expect(page.getByRole("dialog", { name: "New signing secret" }).getByTestId("api-key-secret")).toHaveText(/^whsec_/);
    await page.getByRole("button", { name: "Done" }).click();
    await expect(row).toContainText("Old secret signs until");

    await row.getByRole("button", { name: "Disable" }).click();
    await expect(row).toContainText("Disabled");
  } finally {
    await rx.close();
  }
});
