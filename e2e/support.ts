// Helpers for the dashboard e2e: sign-up through the UI, SDK calls over HTTP, screenshots.
import { expect, type APIRequestContext, type Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const PASSWORD = "correct-horse-battery";
export const uniqueEmail = (tag: string) => `${tag}-${randomBytes(5).toString("hex")}@example.com`;

/** Signs up through the dashboard's form and waits for the onboarding page. */
export async function signUpInBrowser(page: Page, opts: { email: string; businessName?: string; name?: string }) {
  await page.goto("/sign-up");
  await page.getByLabel("Your name").fill(opts.name ?? "Olivia Owner");
  if (opts.businessName !== undefined) await page.getByLabel("Business name").fill(opts.businessName);
  await page.getByLabel("Email").fill(opts.email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
}

export async function signInInBrowser(page: Page, email: string) {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("user-email").first()).toHaveText(email);
}

/** Calls an SDK route (/track, /sdk/*) with an API key, as an integration's backend would. */
export async function sdk(request: APIRequestContext, secret: string, method: "GET" | "POST", route: string, body?: unknown) {
  const res = await request.fetch(route, { method, headers: { "x-api-key": secret, ...(body ? { "content-type": "application/json" } : {}) }, data: body === undefined ? undefined : JSON.stringify(body) });
  let json: any = null;
  try {
    json = await res.json();
  } catch {
    /* not JSON */
  }
  return { status: res.status(), body: json };
}

const SHOTS = path.join(path.dirname(fileURLToPath(import.meta.url)), "screenshots");

/** Saves the page at desktop width (and, when asked, at phone width). */
export async function snap(page: Page, name: string, opts: { mobile?: boolean } = {}) {
  mkdirSync(SHOTS, { recursive: true });
  await page.waitForLoadState("load");
  await expect(page.locator('[role="status"][aria-label^="Loading"]')).toHaveCount(0);
  // Sticky headers render where the page is scrolled: shoot from the top.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForTimeout(150); // let toasts and transitions settle
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true, timeout: 20_000 });
  if (opts.mobile) {
    const size = page.viewportSize();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(200);
    await page.screenshot({ path: path.join(SHOTS, `${name}-390.png`), fullPage: true, timeout: 20_000 });
    if (size) await page.setViewportSize(size);
  }
}

/** Reads the secret shown once after create/rotate. */
export async function readSecret(page: Page): Promise<string> {
  const el = page.getByTestId("api-key-secret").last();
  await expect(el).toHaveText(/^rk_(test|live)_/);
  return (await el.textContent())!.trim();
}

/** On the Balance & funding page: sends a 1 ETH test deposit, verifies it and waits for the pool to show it. */
export async function fundTestPool(page: Page) {
  const deposit = page.getByRole("form", { name: "Send a test deposit" });
  await deposit.getByLabel("Amount (ETH)").fill("1");
  await deposit.getByRole("button", { name: "Send test deposit" }).click();
  await expect(page.getByTestId("test-deposit-tx")).toBeVisible();
  await page.getByRole("form", { name: "Verify a deposit" }).getByRole("button", { name: "Verify and credit" }).click();
  await expect(page.getByTestId("pool-balance")).toHaveText("1 ETH");
}
