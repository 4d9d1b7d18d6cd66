// Test harness for <pith-badge> pages served by tests/browserkit.py. Loaded (deferred) before
// the element's script; it measures the page before the element upgrades, runs the page's
// scenario, and POSTs what it saw to /report/<token>, which releases the image that holds
// the page's load event, so the browser's --screenshot is taken after the report.
// No innerHTML, no eval, no inline script: it runs under the strict CSP pages too.
"use strict";
(() => {
  const token = document.documentElement.dataset.token;
  const scenario = document.documentElement.dataset.scenario;
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const config = document.getElementById("config");
  if (config) window.pithBadge = JSON.parse(config.textContent);

  const rect = (el) => { const r = el.getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height }; };
  const sentinels = () => Object.fromEntries(Array.from(document.querySelectorAll("[data-sentinel]"), (el) => [el.dataset.sentinel, rect(el)]));
  const before = { sentinels: sentinels(), defined: !!(window.customElements && customElements.get("pith-badge")) };

  // a page whose records answer late (a server at the edge of the deadline) says how long to wait
  async function settled(els, ms = Number(document.documentElement.dataset.settleMs) || 15000) {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      if (els.every((el) => el.dataset.state && el.dataset.state !== "checking")) return true;
      await sleep(25);
    }
    return false;
  }
  const badges = () => Array.from(document.querySelectorAll("pith-badge"));

  function describe(el) {
    const root = el.shadowRoot;
    const svg = root && root.querySelector("svg");
    const button = root && root.querySelector("button");
    const panel = root && root.querySelector(".panel");
    const ids = root ? Array.from(root.querySelectorAll("[id]"), (e) => e.id) : [];
    const urls = svg ? Array.from(svg.querySelectorAll("[fill^='url('],[clip-path^='url(']"), (e) => (e.getAttribute("fill") || e.getAttribute("clip-path")).slice(5, -1)) : [];
    return {
      state: el.dataset.state || null,
      signer: el.dataset.signer || null,
      theme: el.dataset.theme || null,
      title: svg ? svg.querySelector("title").textContent : null,
      label: svg ? svg.getAttribute("aria-label") : null,
      svgWidth: svg ? Number(svg.getAttribute("width")) : null,
      svgHeight: svg ? Number(svg.getAttribute("height")) : null,
      rect: rect(el),
      panel: panel ? panel.textContent : null,
      panelHidden: panel ? panel.hidden : null,
      expanded: button ? button.getAttribute("aria-expanded") : null,
      links: panel ? Array.from(panel.querySelectorAll("a"), (a) => a.href) : [],
      // what the shadow root holds besides the element's own parts: nothing a record can inject
      tags: root ? Array.from(new Set(Array.from(root.querySelectorAll("*"), (e) => e.localName))).sort() : [],
      // every url(#id) the drawing uses resolves inside the same shadow root
      danglingRefs: urls.filter((id) => !root.getElementById(id)),
      ids,
      lightDom: el.children.length,
      adopted: root ? root.adoptedStyleSheets.length : 0,
      // the page's inherited styles must not reach the drawing or the panel
      inherited: svg ? ["letterSpacing", "textTransform", "wordSpacing"].map((k) => getComputedStyle(svg.querySelector("text"))[k]) : null,
      panelFont: panel ? [getComputedStyle(panel).fontSize, getComputedStyle(panel).letterSpacing] : null,
    };
  }

  const report = {};
  const errors = [];
  window.addEventListener("error", (e) => errors.push(String(e.message)));
  window.addEventListener("securitypolicyviolation", (e) => errors.push(`CSP: ${e.violatedDirective} ${e.blockedURI}`));

  async function waitFor(test, ms = 10000) {
    const end = Date.now() + ms;
    while (Date.now() < end) { if (test()) return true; await sleep(25); }
    return false;
  }

  const key = (el, type, k) => el.dispatchEvent(new KeyboardEvent(type, { key: k, bubbles: true, composed: true, cancelable: true }));

  // Opening by real keys is tested with a driver (tests/drivers.py); here: the parts and Escape.
  async function keyboard(el) {
    const root = el.shadowRoot, button = root.querySelector("button"), panel = root.querySelector(".panel");
    const steps = {};
    button.focus();
    steps.focused = root.activeElement === button && button.tabIndex >= 0 && button.localName === "button";
    button.click();
    steps.click = [button.getAttribute("aria-expanded"), panel.hidden, panel.getBoundingClientRect().height > 0];
    key(button, "keydown", "Escape");
    steps.escape = [button.getAttribute("aria-expanded"), panel.hidden, root.activeElement === button];
    steps.controls = root.getElementById(button.getAttribute("aria-controls")) === panel;
    return steps;
  }

  async function live() {
    const out = {};
    const { good, tampered, slow, number, other } = document.getElementById("data").dataset;
    // A single-page app: the element exists and is connected before it has any attribute.
    const el = document.createElement("pith-badge");
    el.id = "spa";
    document.getElementById("spa-slot").append(el);
    await sleep(50);
    out.empty = describe(el);
    el.setAttribute("src", good);
    el.setAttribute("number", number);
    await sleep(0);
    out.first = await settled([el]) && describe(el);
    el.setAttribute("src", tampered);
    out.tampered = await settled([el]) && describe(el);
    el.setAttribute("number", other);  // the good record is not this number's
    el.setAttribute("src", good);
    out.otherNumber = await settled([el]) && describe(el);
    // a slow fetch, replaced before it answers: its late answer must not win
    el.setAttribute("number", number);
    el.setAttribute("src", slow);
    await sleep(100);
    el.setAttribute("src", good);
    out.replaced = await settled([el]) && describe(el);
    await sleep(1500);  // the slow server answers after ~1 s: nothing may change
    out.afterSlow = describe(el);
    el.setAttribute("theme", "dark");
    await sleep(50);
    out.dark = describe(el);
    el.setAttribute("size", "40");
    await sleep(50);
    out.big = describe(el);
    el.removeAttribute("theme");
    el.removeAttribute("size");
    // theme="auto": the page in the iframe follows the iframe's used color-scheme live
    const frame = document.getElementById("scheme");
    await waitFor(() => frame.contentDocument && frame.contentDocument.querySelector("pith-badge[data-state]"));
    const inner = frame.contentDocument.querySelector("pith-badge");
    await waitFor(() => inner.dataset.state !== "checking");
    out.schemeLight = inner.dataset.theme;
    frame.style.colorScheme = "dark";
    await waitFor(() => inner.dataset.theme === "dark", 3000);
    out.schemeDark = inner.dataset.theme;
    frame.style.colorScheme = "light";
    await waitFor(() => inner.dataset.theme === "light", 3000);
    out.schemeBack = inner.dataset.theme;
    out.keyboard = await keyboard(el);
    el.remove();
    const edge = document.getElementById("edge");
    edge.shadowRoot.querySelector("button").click();
    const r = edge.shadowRoot.querySelector(".panel").getBoundingClientRect();
    report.edge = { left: r.left, right: r.right, width: document.documentElement.clientWidth };
    return out;
  }

  // tests/fixtures/canon-vectors.json through the ES module's verifyDocument, from the bytes served:
  // "refused" where the element would say unchecked because the answer is not a Pith record at all.
  async function vectors() {
    const list = JSON.parse(document.getElementById("vectors").textContent);
    const m = await import(document.getElementById("vectors").dataset.module);
    const keys = await m.trustedKeys(window.pithBadge.keys);
    const out = {};
    for (const { name, url } of list) {
      const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
      try {
        const r = await m.verifyDocument(bytes, { keys });
        out[name] = { verdict: r.state, reason: r.reason, title: !!(r.paper && r.paper.title && r.paper.title.matches) };
      } catch (e) {
        out[name] = { verdict: e instanceof m.Refused ? "refused" : e instanceof m.Undecidable ? "unchecked" : `error ${e}`,
                      reason: String(e && e.message) };
      }
    }
    return out;
  }

  // tests/fixtures/number-vectors.json's texts through the ES module's readNumber
  async function numbers() {
    const list = JSON.parse(document.getElementById("numbers").textContent);
    const m = await import(document.getElementById("numbers").dataset.module);
    return list.map((text) => m.readNumber(text));
  }

  async function main() {
    await waitFor(() => window.customElements && customElements.get("pith-badge"), 10000);
    const waiting = badges().filter((el) => !el.hasAttribute("data-stays-checking"));
    report.settled = await settled(waiting);
    if (scenario === "live") report.live = await live();
    if (scenario === "vectors") report.vectors = await vectors();
    if (scenario === "numbers") report.numbers = await numbers();
    // a page's own steps (a script it loads defines window.pithScenario): what they saw goes in the report
    if (typeof window.pithScenario === "function") report.scenario = await window.pithScenario();
    report.badges = Object.fromEntries(badges().map((el) => [el.id, describe(el)]));
    report.before = before;
    // the light DOM (each snippet's fallback badge): ids unique in the document, and every
    // url(#id) of a fallback drawing names an element of that same drawing
    report.documentIds = Array.from(document.querySelectorAll("[id]"), (e) => e.id);
    report.fallbackRefs = Array.from(document.querySelectorAll("pith-badge svg"), (svg) =>
      Array.from(svg.querySelectorAll("[fill^='url('],[clip-path^='url(']"), (e) => (e.getAttribute("fill") || e.getAttribute("clip-path")).slice(5, -1))
        .every((id) => svg.querySelector(`[id="${id}"]`) === document.getElementById(id)));
    report.after = { sentinels: sentinels() };
    const open = document.querySelector("[data-open-panel]");
    if (open) {
      report.keyboard = await keyboard(open);
      open.shadowRoot.querySelector("button").click();  // leave it open for axe and the screenshot
      const panel = open.shadowRoot.querySelector(".panel");
      report.openPanel = rect(panel);
      // what the reader sees at the panel's centre and near its bottom is the panel itself,
      // though the badge sits in a box with overflow:hidden
      const p = panel.getBoundingClientRect();
      report.openPanelOnTop = [[p.left + p.width / 2, p.top + p.height / 2], [p.left + 10, p.bottom - 5]]
        .map(([x, y]) => { const hit = open.shadowRoot.elementFromPoint(x, y); return !!hit && panel.contains(hit); });
    }
    if (window.axe) {
      const result = await axe.run(document);
      report.axe = result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.html.slice(0, 300)) }));
      report.axePasses = result.passes.length;
    }
    report.dpr = window.devicePixelRatio;
    report.scroll = { x: window.scrollX, y: window.scrollY };
  }

  main().catch((e) => { report.failure = String((e && e.stack) || e); }).finally(() => {
    report.errors = errors;
    report.userAgent = navigator.userAgent;
    fetch(`/report/${token}`, { method: "POST", body: JSON.stringify(report) });
  });
})();
