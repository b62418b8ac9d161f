// Page checks every dashboard spec can run: no serious or critical axe violations (WCAG 2 A/AA)
// and no horizontal page scroll, at desktop (1440 px) and phone (390 px) widths. With E2E_SHOTS=<dir>,
// each checked page is also saved there at both widths, to look at as its user would.
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

export const WIDTHS = [1440, 390] as const;

async function settle(page: Page) {
  await page.waitForLoadState("load");
  await expect(page.locator('[role="status"][aria-label^="Loading"]')).toHaveCount(0);
  await page.waitForTimeout(150);
}

/** Serious and critical violations, as "rule: target" lines (empty when clean). */
export async function axeProblems(page: Page): Promise<string[]> {
  const res = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return res.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(" ")} — ${n.failureSummary?.split("\n")[1]?.trim() ?? v.help}`));
}

/** Checks the current page at both widths, then restores the viewport. */
export async function expectPageHealthy(page: Page, name: string) {
  const size = page.viewportSize();
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await settle(page);
    expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} at ${width}px scrolls sideways`).toBeLessThanOrEqual(width);
    expect(await axeProblems(page), `${name} at ${width}px`).toEqual([]);
    if (process.env.E2E_SHOTS) await page.screenshot({ path: path.join(process.env.E2E_SHOTS, `${name.replace(/[^a-z0-9]+/gi, "-").toLowerCase()}-${width}.png`), fullPage: true });
  }
  if (size) await page.setViewportSize(size);
}
