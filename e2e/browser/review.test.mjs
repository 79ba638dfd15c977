// Real-browser test of LexSona's review page: headless Chromium (the
// system's, driven by playwright-core) against a running `lexsona serve`.
// e2e/browser/browser_test.go starts the server and runs this script with:
//   LEXSONA_URL        the server, e.g. http://127.0.0.1:PORT
//   LEXSONA_READ_KEY   a read API key
//   LEXSONA_WRITE_KEY  a write API key
//   LEXSONA_TENANT_KEY a write API key of the named tenant alice
//   LEXSONA_ARTIFACTS  the folder screenshots are saved in
//   LEXSONA_CHROMIUM   the browser executable (default /usr/bin/chromium)
// Each check prints "ok NAME" or "FAIL NAME: why"; the exit status is 1 when
// any check failed.
import { chromium } from "playwright-core";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const base = process.env.LEXSONA_URL;
const readKey = process.env.LEXSONA_READ_KEY;
const writeKey = process.env.LEXSONA_WRITE_KEY;
const tenantKey = process.env.LEXSONA_TENANT_KEY;
const artifacts = process.env.LEXSONA_ARTIFACTS;
const executablePath = process.env.LEXSONA_CHROMIUM || "/usr/bin/chromium";
if (!base || !readKey || !writeKey || !tenantKey || !artifacts) {
  console.error("set LEXSONA_URL, LEXSONA_READ_KEY, LEXSONA_WRITE_KEY, LEXSONA_TENANT_KEY and LEXSONA_ARTIFACTS");
  process.exit(2);
}
mkdirSync(artifacts, { recursive: true });

let failures = 0;
async function check(name, fn) {
  try {
    await fn();
    console.log(`ok ${name}`);
  } catch (err) {
    failures++;
    console.log(`FAIL ${name}: ${err && err.stack ? err.stack : err}`);
  }
}
function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}

// api calls the JSON API with the write key (or key).
async function api(method, path, body, key = writeKey) {
  const res = await fetch(base + path, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}
const rule = (id) => api("GET", `/v1/rules/${id}`);
const correct = (c) => api("POST", "/v1/corrections", c);

async function shot(page, name, opts = {}) {
  await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true, ...opts });
}

// ---- seed: a pending confirmation, a candidate rule, an exception proposal
const confirmTexts = [
  "search the code faster",
  "always write tests in table form",
  "keep it shorter please",
  "be careful with the shell",
  "that command was not right",
];
// seedPending records the texts until one is sent to confirmation.
async function seedPending(texts) {
  for (const text of texts) {
    const r = await correct({ text });
    if (r.pending_id) return { id: r.pending_id, text, top: r.candidates[0].rule_id };
  }
  return undefined;
}
const pending = await seedPending(confirmTexts);
const cand = await correct({ text: "prefer tabs for indentation in yaml files" });
let candidateID = cand.created_rule ? cand.created_rule.rule_id : cand.rule_id;
const parentID = "tool.no-sed-for-file-editing";
let exceptionID;
for (let i = 1; i <= 3; i++) {
  const r = await correct({ text: `in the legacy tree sed is fine (${i})`, rule_id: parentID, polarity: -1, scope: { context_tags: ["legacy"] } });
  if (r.exception_proposal) exceptionID = r.exception_proposal.rule.rule_id;
}

const browser = await chromium.launch({ executablePath, headless: true, args: ["--no-sandbox"] });
const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
const page = await ctx.newPage();
const cspErrors = [];
page.on("console", (m) => {
  if (m.type() === "error") cspErrors.push(m.text());
});

await check("seeded a pending confirmation, a candidate and an exception proposal", async () => {
  assert(pending, `none of ${JSON.stringify(confirmTexts)} was sent to confirmation`);
  assert(cand.decision === "new_rule", `the candidate text was decided ${cand.decision}`);
  assert(exceptionID, "three counterexamples tagged legacy proposed no exception");
});

await check("login asks for a key and opens a session", async () => {
  await page.goto(base + "/");
  assert(page.url().includes("/login"), `not sent to the login form: ${page.url()}`);
  await shot(page, "01-login");
  await page.fill("#key", "w-not-a-key-00000000000");
  await page.press("#key", "Enter");
  await page.waitForSelector(".error");
  await page.fill("#key", writeKey);
  await page.press("#key", "Enter"); // keyboard only
  await page.waitForURL(base + "/");
  const cookies = await ctx.cookies();
  const c = cookies.find((c) => c.name === "lexsona_session");
  assert(c && c.httpOnly && c.sameSite === "Strict", `session cookie ${JSON.stringify(c)}`);
});

await check("inbox shows the pending confirmation, the count in the title", async () => {
  await page.goto(base + "/");
  const card = page.locator(`[data-testid=pending][data-id="${pending.id}"]`);
  await card.waitFor();
  assert((await card.locator("blockquote").innerText()).includes(pending.text), "the correction's text is not shown");
  const title = await page.title();
  assert(/^\(\d+\) Inbox/.test(title), `title ${title}`);
  await shot(page, "02-inbox");
});

await check("accepting a confirmation adds evidence to the rule (API)", async () => {
  const before = await rule(pending.top);
  const card = page.locator(`[data-testid=pending][data-id="${pending.id}"]`);
  assert(await card.locator(`input[name=rule][value="${pending.top}"]`).isChecked(), "the top candidate is not preselected");
  await card.getByRole("button", { name: "Accept" }).click();
  await page.waitForURL(/done=accepted/);
  await page.getByText("Confirmation accepted").waitFor();
  assert((await page.locator(`[data-testid=pending][data-id="${pending.id}"]`).count()) === 0, "still in the inbox");
  const after = await rule(pending.top);
  assert(after.evidence === before.evidence + 1, `evidence ${before.evidence} -> ${after.evidence}`);
  const h = await api("GET", `/v1/rules/${pending.top}/history`);
  assert(h.events.some((e) => e.event_type === "confirmation"), "no confirmation event in the history");
});

await check("a candidate is accepted and appears in the persona preview", async () => {
  await page.goto(base + "/");
  const card = page.locator(`[data-testid=candidate][data-id="${candidateID}"]`);
  await card.getByRole("button", { name: "Accept" }).click();
  await page.waitForURL(/done=candidate/);
  // Accepted, it is filed under an id of its own and stated: in force at once.
  const filed = (await api("GET", "/v1/rules?limit=1000")).rules.find((r) => r.text === "prefer tabs for indentation in yaml files");
  assert(filed && !filed.rule_id.startsWith("proposed."), `filed as ${filed && filed.rule_id}`);
  candidateID = filed.rule_id;
  const r = await rule(candidateID);
  assert(r.status === "active-eligible" && r.active, `status ${r.status}, active ${r.active}`);
  await page.goto(base + "/persona");
  const prompt = await page.locator("[data-testid=prompt]").innerText();
  assert(prompt.includes("prefer tabs for indentation in yaml files") && prompt.includes("(stated by the user"), `prompt:\n${prompt}`);
  assert((await page.locator(`[data-testid=decision][data-id="${candidateID}"]`).getAttribute("data-outcome")) === "included", "not included");
  await shot(page, "05-persona");
});

await check("a rule is edited and its receipts show the edit", async () => {
  await page.goto(base + "/rules/tool.use-ripgrep");
  await page.getByText("Edit this rule").click();
  await page.fill("textarea[name=text]", "Search with ripgrep (rg); never grep -r.");
  await page.selectOption("select[name=severity]", "must");
  await page.getByRole("button", { name: "Save" }).click();
  await page.waitForURL(/done=edited/);
  const first = page.locator("[data-testid=event]").first();
  assert((await first.getAttribute("data-type")) === "manual_override", `newest event ${await first.getAttribute("data-type")}`);
  assert((await page.locator("[data-testid=rule-text]").innerText()).includes("never grep -r"), "text not shown");
  const r = await rule("tool.use-ripgrep");
  assert(r.text === "Search with ripgrep (rg); never grep -r." && r.severity === "must", `rule ${JSON.stringify(r)}`);
  assert((await page.locator("[data-testid=chart] path.line").count()) === 1, "no confidence chart");
  await shot(page, "04-rule");
});

// chartGeometry measures the rule page's chart as drawn: the legend of the
// activation line, the plot, the event dots and the time labels.
async function chartGeometry(p) {
  return p.evaluate(() => {
    const svg = document.querySelector("[data-testid=chart]");
    const box = (el) => {
      const b = el.getBoundingClientRect();
      return { l: b.left, r: b.right, t: b.top, b: b.bottom };
    };
    return {
      legend: box(svg.querySelector("[data-testid=chart-legend] text")),
      plot: box(svg.querySelector("rect.plot")),
      chart: box(svg),
      dots: [...svg.querySelectorAll("circle.ev")].map(box),
      labels: [...svg.querySelectorAll("text.xlabel")].filter((e) => getComputedStyle(e).display !== "none").map((e) => e.textContent),
    };
  });
}
function assertChartClear(g, where) {
  assert(g.legend.b <= g.plot.t + 0.5, `${where}: the activation legend (bottom ${g.legend.b}) reaches into the plot (top ${g.plot.t})`);
  assert(g.legend.t >= g.chart.t - 0.5, `${where}: the activation legend leaves the chart`);
  for (const d of g.dots) {
    const apart = d.r < g.legend.l || d.l > g.legend.r || d.b < g.legend.t || d.t > g.legend.b;
    assert(apart, `${where}: a dot at ${JSON.stringify(d)} is under the legend ${JSON.stringify(g.legend)}`);
  }
  for (let i = 1; i < g.labels.length; i++) {
    assert(g.labels[i] !== g.labels[i - 1], `${where}: time label ${g.labels[i]} repeats: ${JSON.stringify(g.labels)}`);
  }
}

await check("the chart's legend and time labels stay clear of the data", async () => {
  // A burst of reinforcements within seconds takes the candidate past the
  // activation line: its last dots end near it, at the right.
  await page.goto(base + `/rules/${candidateID}`);
  assertChartClear(await chartGeometry(page), candidateID);
  await shot(page, "15-active-rule-chart");
  await page.goto(base + "/rules/tool.use-ripgrep");
  assertChartClear(await chartGeometry(page), "tool.use-ripgrep");
});

await check("an exception proposal is accepted and the parent's excluded tag appears", async () => {
  await page.goto(base + "/");
  const card = page.locator(`[data-testid=exception][data-id="${exceptionID}"]`);
  await card.waitFor();
  await card.getByRole("button", { name: "Accept" }).click();
  await page.waitForURL(/done=candidate/);
  const parent = await rule(parentID);
  assert((parent.scope.exclude_tags || []).includes("legacy"), `parent scope ${JSON.stringify(parent.scope)}`);
  await page.goto(base + `/rules/${parentID}`);
  const scope = await page.locator("[data-testid=rule-scope]").innerText();
  assert(scope.includes("not legacy"), `parent scope shown as ${scope}`);
  assert((await page.locator("[data-testid=exclude-tags]").inputValue()) === "legacy", "edit form lacks the excluded tag");
  await shot(page, "06-parent-rule");
});

await check("rules page filters and shows distance to activation", async () => {
  await page.goto(base + "/rules");
  await page.keyboard.press("/");
  await page.keyboard.type("ripgrep");
  await page.keyboard.press("Enter");
  await page.waitForURL(/q=ripgrep/);
  const rows = page.locator("[data-testid=rule-row]");
  assert((await rows.count()) >= 1, "no row for ripgrep");
  assert((await rows.first().getAttribute("data-id")) === "tool.use-ripgrep", "first row");
  await page.goto(base + "/rules?state=active");
  for (const s of await page.locator("[data-testid=rule-row] .state").allInnerTexts()) assert(s === "active", `state ${s}`);
  await page.goto(base + "/rules");
  await shot(page, "03-rules");
});

await check("registry upload previews the sync, then syncs", async () => {
  const yaml = [
    "version: 1",
    "name: team",
    "rules:",
    "  - rule_id: team.small-prs",
    "    category: communication_style",
    "    severity: should",
    '    template: "Keep pull requests small: one change each"',
    "    examples:",
    '      - "this PR is way too big"',
  ].join("\n");
  const file = join(artifacts, "team.yaml");
  writeFileSync(file, yaml + "\n");
  await page.goto(base + "/registry");
  await page.setInputFiles("input[type=file]", file);
  await page.getByRole("button", { name: "Preview" }).click();
  const plan = page.locator("[data-testid=plan]");
  await plan.waitFor();
  assert((await plan.innerText()).includes("team.small-prs"), "the plan does not list the new rule");
  assert((await plan.locator("h3").first().innerText()) === "add 1", await plan.locator("h3").first().innerText());
  let missing = false;
  try { await rule("team.small-prs"); } catch { missing = true; }
  assert(missing, "the preview wrote the rule");
  await shot(page, "07-registry-preview");
  await page.getByRole("button", { name: "Sync it" }).click();
  await page.locator("[data-testid=sync-summary]").waitFor();
  await shot(page, "08-registry-synced");
  assert((await page.locator("[data-testid=sync-summary]").innerText()).includes("1 added"), "summary");
  assert((await page.locator('[data-testid=source][data-name="team"]').count()) === 1, "team not among the sources");
  assert((await rule("team.small-prs")).source === "registry", "not synced");
});

await check("registry names link to the registry's row and its rules", async () => {
  await page.goto(base + "/rules/team.small-prs");
  await page.locator("[data-testid=registry-link]").click();
  await page.waitForURL(base + "/registry#registry-team");
  const row = page.locator("#registry-team");
  assert(await row.isVisible(), "the registry's row is not shown");
  assert((await row.evaluate((e) => e.matches(":target"))), "the registry's row is not the page's target");
  await shot(page, "16-registry-target");
  await row.locator("[data-testid=registry-rules]").click();
  await page.waitForURL(base + "/rules?registry=team");
  const ids = await page.locator("[data-testid=rule-row]").evaluateAll((rows) => rows.map((r) => r.dataset.id));
  assert(ids.length > 0 && ids.every((id) => id.startsWith("team.")), `registry team's rules: ${ids}`);
  await page.goto(base + "/rules");
  const links = await page.locator("[data-testid=registry-link]").evaluateAll((as) => as.map((a) => a.getAttribute("href")));
  assert(links.includes("/registry#registry-default") && links.includes("/registry#registry-team"), `registry links on the rules list: ${links}`);
});

await check("a second upload previews an update and an addition exactly, synced from the keyboard", async () => {
  const yaml = [
    "version: 1",
    "name: team",
    "rules:",
    "  - rule_id: team.small-prs",
    "    category: communication_style",
    "    severity: should",
    '    template: "Keep pull requests small: one concern each"',
    "  - rule_id: team.tests-first",
    "    category: code_style",
    "    severity: should",
    '    template: "Write the failing test before the fix"',
  ].join("\n");
  const file = join(artifacts, "team-v2.yaml");
  writeFileSync(file, yaml + "\n");
  const before = (await rule("team.small-prs")).text;
  await page.goto(base + "/registry");
  await page.setInputFiles("input[type=file]", file);
  await page.getByRole("button", { name: "Preview" }).click();
  const plan = page.locator("[data-testid=plan]");
  await plan.waitFor();
  const ids = async (kind) => (await plan.locator(`[data-testid=plan-${kind}]`).allInnerTexts()).map((t) => t.split(/\s/)[0]);
  assert(JSON.stringify(await ids("added")) === '["team.tests-first"]', `added ${await ids("added")}`);
  assert(JSON.stringify(await ids("updated")) === '["team.small-prs"]', `updated ${await ids("updated")}`);
  assert((await ids("archived")).length === 0, `archived ${await ids("archived")}`);
  assert((await plan.locator("[data-testid=plan-updated]").innerText()).includes("changes text"), "the update does not say what changes");
  assert((await rule("team.small-prs")).text === before, "the preview changed the rule");
  await page.setViewportSize({ width: 390, height: 844 });
  await shot(page, "13-phone-registry-preview");
  await page.setViewportSize({ width: 1280, height: 900 });
  const syncButton = page.getByRole("button", { name: "Sync it" });
  await syncButton.focus();
  await page.keyboard.press("Enter");
  await page.locator("[data-testid=sync-summary]").waitFor();
  assert((await page.locator("[data-testid=sync-summary]").innerText()).includes("1 added, 1 updated, 0 archived"), "summary");
  assert((await rule("team.small-prs")).text === "Keep pull requests small: one concern each", "not updated");
  assert((await rule("team.tests-first")).source === "registry", "not added");
});

await check("a read key sees everything and changes nothing", async () => {
  const rctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const rp = await rctx.newPage();
  await rp.goto(base + "/login");
  await rp.fill("#key", readKey);
  await rp.press("#key", "Enter");
  await rp.waitForURL(base + "/");
  assert(await rp.locator(".badge.ro").isVisible(), "no read-only badge");
  const waiting = await seedPending(confirmTexts.slice().reverse());
  assert(waiting, "no second pending confirmation");
  await rp.goto(base + "/");
  await rp.locator(`[data-testid=pending][data-id="${waiting.id}"]`).waitFor();
  assert((await rp.locator("main button, main form").count()) === 0, "the inbox shows forms or buttons to a read key");
  await shot(rp, "09-read-only-inbox");
  await rp.goto(base + "/rules/tool.use-ripgrep");
  assert((await rp.locator("form[action$='/archive'], form[action$='/edit']").count()) === 0, "write forms shown");
  const before = await rule("tool.use-ripgrep");
  // Post with the session's own valid token, as a tampered page would.
  const status = await rp.evaluate(async () => {
    const token = document.querySelector("input[name=csrf]").value;
    const res = await fetch("/rules/tool.use-ripgrep/archive", { method: "POST", body: new URLSearchParams({ csrf: token }) });
    return res.status;
  });
  assert(status === 403, `status ${status}`);
  const after = await rule("tool.use-ripgrep");
  assert(after.status === before.status && after.status !== "archived", `status ${after.status}`);
  await rctx.close();
});

await check("a cross-site form post is refused", async () => {
  const token = await page.locator("input[name=csrf]").first().inputValue();
  await page.route("http://attacker.test/**", (route) =>
    route.fulfill({
      contentType: "text/html",
      body: `<form id=f method=post action="${base}/rules/tool.use-ripgrep/archive"><input name=csrf value="${token}"></form>`,
    }),
  );
  await page.goto("http://attacker.test/");
  const [res] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith("/rules/tool.use-ripgrep/archive")),
    page.evaluate(() => document.getElementById("f").submit()),
  ]);
  assert(res.status() === 403, `status ${res.status()}`);
  assert((await rule("tool.use-ripgrep")).status !== "archived", "archived by a cross-site post");
});

await check("phone-sized pages are readable", async () => {
  const m = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
  await m.addCookies(await ctx.cookies());
  const mp = await m.newPage();
  await mp.goto(base + "/rules/tool.use-ripgrep");
  const overflow = await mp.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert(overflow <= 1, `the page is ${overflow}px wider than the screen`);
  await shot(mp, "10-phone-rule");
  assertChartClear(await chartGeometry(mp), "phone tool.use-ripgrep");
  await mp.goto(base + "/");
  await shot(mp, "11-phone-inbox");
  await mp.goto(base + "/rules");
  await shot(mp, "12-phone-rules", { fullPage: false });
  await m.close();
});

await check("a tenant's key sees its own memory only", async () => {
  await api("POST", "/v1/rules", { rule_id: "alice.own-rule", category: "code_style", text: "Alice keeps her own rule" }, tenantKey);
  const tctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const tp = await tctx.newPage();
  await tp.goto(base + "/login");
  await tp.fill("#key", tenantKey);
  await tp.press("#key", "Enter");
  await tp.waitForURL(base + "/");
  assert((await tp.locator("[data-testid=tenant]").innerText()) === "alice", "the session does not name tenant alice");
  await tp.goto(base + "/rules");
  const ids = await tp.locator("[data-testid=rule-row]").evaluateAll((rows) => rows.map((r) => r.dataset.id));
  assert(ids.includes("alice.own-rule"), `alice's rules ${ids}`);
  assert(!ids.includes("team.small-prs") && !ids.includes(candidateID), `alice sees the operator's rules: ${ids}`);
  await tp.goto(base + "/rules/tool.use-ripgrep");
  assert(!(await tp.locator("[data-testid=rule-text]").innerText()).includes("never grep -r"), "alice sees the operator's edit");
  await shot(tp, "14-tenant-rules");
  await tp.goto(base + "/rules/team.small-prs");
  assert(/Not Found/.test(await tp.title()), `the operator's registry rule on alice's page: ${await tp.title()}`);
  await tctx.close();
  await page.goto(base + "/rules/alice.own-rule");
  assert(/Not Found/.test(await page.title()), `alice's rule on the operator's page: ${await page.title()}`);
});

await check("no page broke its Content-Security-Policy", async () => {
  const csp = cspErrors.filter((e) => /Content Security Policy/i.test(e));
  assert(csp.length === 0, csp.join("\n"));
});

await browser.close();
console.log(failures ? `${failures} check(s) failed` : "all checks passed");
process.exit(failures ? 1 : 0);
