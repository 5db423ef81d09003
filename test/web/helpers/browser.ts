/**
 * Debian's Chromium driven by playwright-core (no browser download): the web UI tested as a person uses it, elements
 * found by role and accessible name. As root Chromium needs --no-sandbox; with no outside network, background
 * networking, component updates, sync and QUIC are off. Each launch gets a fresh temporary profile.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

export const CHROMIUM = process.env.TOOLBRIDGE_CHROMIUM ?? "/usr/bin/chromium";
export const REPO = fileURLToPath(new URL("../../../", import.meta.url));
/** Screenshots land here (CI keeps them: .ci/run points TOOLBRIDGE_ARTIFACTS_DIR outside its scratch clone). */
export const ARTIFACTS = path.join(
  process.env.TOOLBRIDGE_ARTIFACTS_DIR ?? path.join(REPO, "test-artifacts"),
  "web",
);

/**
 * Whether the browser tests can run here. Without Chromium they are skipped with a note — except where CI says it
 * must be there (TOOLBRIDGE_REQUIRE_CHROMIUM=1, set by .ci/run after installing it): then they fail.
 */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.TOOLBRIDGE_REQUIRE_CHROMIUM === "1")
    throw new Error(
      `Chromium is required but not at ${CHROMIUM}: apt-get install -y chromium (see .ci/run).`,
    );
  process.stderr.write(
    `web UI browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium)\n`,
  );
  return false;
}

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      ...(process.getuid?.() === 0 ? ["--no-sandbox"] : []),
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-quic",
      "--disable-gpu",
    ],
  });
}

export interface PageOptions {
  colorScheme?: "light" | "dark";
  width?: number;
  height?: number;
}

/** A new browser context (its own cookies) with one page; page errors fail the test that reads `errors`. */
export async function openPage(
  browser: Browser,
  url: string,
  options: PageOptions = {},
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1200, height: options.height ?? 860 },
    colorScheme: options.colorScheme ?? "light",
    reducedMotion: "reduce",
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  await page.goto(url);
  return { context, page, errors };
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** axe-core run inside the page: the serious and critical violations (WCAG 2 A/AA and best practices). */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated over the DevTools protocol: the page's CSP (no inline script) does not apply to it.
  await page.evaluate(`${AXE_SOURCE}\n;void 0`);
  const results = (await page.evaluate(`axe.run(document, {
    runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] },
    resultTypes: ["violations"],
  })`)) as {
    violations: Array<{
      id: string;
      impact: string | null;
      help: string;
      nodes: Array<{ target: string[] }>;
    }>;
  };
  return results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes.slice(0, 5).map((node) => node.target.join(" ")),
    }));
}

/** Save a screenshot as a test artifact: `<ARTIFACTS>/<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.png`);
  // From the top: a full-page shot of a scrolled page draws the sticky header where the scroll left it.
  await page.evaluate("window.scrollTo(0, 0)");
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * Every page at 1200 px light, 1200 px dark and 390 px (a phone), screenshotted, with axe run in both themes: what
 * the acceptance asks of each page. Returns the violations found, by variant.
 */
export async function checkPageEverywhere(
  browser: Browser,
  url: string,
  name: string,
  ready: (page: Page) => Promise<void>,
): Promise<Record<string, AxeViolation[]>> {
  const found: Record<string, AxeViolation[]> = {};
  for (const variant of [
    { key: "light", colorScheme: "light" as const, width: 1200 },
    { key: "dark", colorScheme: "dark" as const, width: 1200 },
    { key: "390", colorScheme: "light" as const, width: 390 },
  ]) {
    const { context, page } = await openPage(browser, url, {
      colorScheme: variant.colorScheme,
      width: variant.width,
    });
    try {
      await ready(page);
      await screenshot(page, `${name}-${variant.key}`);
      found[variant.key] = await seriousViolations(page);
    } finally {
      await context.close();
    }
  }
  return found;
}

/**
 * Record each `data-phase` a tool card takes, in order, from now on (a MutationObserver in the page): a state that
 * lasts a millisecond is still seen.
 */
export async function recordCardPhases(page: Page): Promise<void> {
  // A string: the test code is compiled without the DOM's types.
  await page.evaluate(`(() => {
    const seen = [];
    window.__phases = seen;
    const note = (element) => {
      const phase = element.getAttribute("data-phase");
      const name = element.getAttribute("aria-label") || "";
      const last = seen[seen.length - 1];
      if (phase && !(last && last[0] === name && last[1] === phase)) seen.push([name, phase]);
    };
    new MutationObserver((mutations) => {
      for (const mutation of mutations) {
        if (mutation.type === "attributes") note(mutation.target);
        for (const node of mutation.addedNodes)
          if (node.nodeType === 1) {
            if (node.hasAttribute("data-phase")) note(node);
            for (const child of node.querySelectorAll("[data-phase]")) note(child);
          }
      }
    }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-phase"] });
  })()`);
}

export async function cardPhases(page: Page, tool: string): Promise<string[]> {
  const all = ((await page.evaluate("window.__phases")) ?? []) as Array<[string, string]>;
  return all.filter(([name]) => name === tool).map(([, phase]) => phase);
}
