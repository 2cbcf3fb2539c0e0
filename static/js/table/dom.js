// Small DOM and text helpers shared by the client's modules (the table page, the lobby,
// the history): h() is the one way they build elements. No innerHTML here: every element
// is built with createElement and text nodes (the CSP forbids inline styles, and a
// player's name must never be read as markup).

/** gettext through Django's JavaScript catalogue (loaded by base.html before modules). */
export function t(text) {
  return window.gettext ? window.gettext(text) : text;
}

/** ngettext: the plural form for `count`. */
export function nt(singular, plural, count) {
  return window.ngettext ? window.ngettext(singular, plural, count) : count === 1 ? singular : plural;
}

/** interpolate() with named placeholders: fmt("%(name)s ходит", {name: "ann"}). */
export function fmt(text, values) {
  if (window.interpolate) return window.interpolate(text, values, true);
  return text.replace(/%\((\w+)\)s/g, (_, key) => String(values[key]));
}

/**
 * h("button", {class: "x", dataset: {action: "hit"}, onclick: fn}, "text", child…)
 * Attributes: `class`, `dataset` (object), `on<event>` (listener functions, attached with
 * addEventListener — never as attributes), booleans (`disabled`, `hidden`: set when true),
 * anything else as an attribute. Children: strings, nodes, arrays, null/false (skipped).
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") element.className = value;
    else if (key === "dataset") Object.assign(element.dataset, value);
    else if (key.startsWith("on") && typeof value === "function") {
      element.addEventListener(key.slice(2), value);
    } else if (value === true) element.setAttribute(key, "");
    else element.setAttribute(key, String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(element, child);
    else if (child instanceof Node) element.append(child);
    else element.append(document.createTextNode(String(child)));
  }
}

/** Replace an element's children. */
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

/** "0:27" from milliseconds (rounded up: a clock at 0:00 has run out). */
export function clockText(ms) {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  const minutes = Math.floor(seconds / 60);
  return `${minutes}:${String(seconds % 60).padStart(2, "0")}`;
}

/** A signed amount: "+50", "−20" (a real minus sign), "0"; kept as an alias of formatSigned. */
export function signed(value) {
  return formatSigned(value);
}

// ---- One number format for the whole page (issue 20: «10 000», a true minus, «+25») ----

function pageLanguage() {
  return document.documentElement.lang || undefined;
}

/** A whole number in the page's language: «10 000» (ru), "10,000" (en), a true minus «−». */
export function formatNumber(value) {
  const text = new Intl.NumberFormat(pageLanguage(), { maximumFractionDigits: 0 }).format(
    Number(value || 0),
  );
  return unify(text);
}

// A true minus, and the one no-break space the server writes too (Chromium's Russian
// grouping may use a narrow one).
function unify(text) {
  return text.replace(/-/g, "\u2212").replace(/\u202f/g, "\u00a0");
}

/** A signed amount in the page's language: «+25», «−10 000», «0». */
export function formatSigned(value) {
  const text = new Intl.NumberFormat(pageLanguage(), {
    maximumFractionDigits: 0,
    signDisplay: "exceptZero",
  }).format(Number(value || 0));
  return unify(text);
}

/**
 * The plural form for `count` by the page language's own rule (Intl.PluralRules), because
 * the msgids are Russian and there is no Russian catalogue: Django's ngettext would fall
 * back to the two-form rule. `forms` maps Intl categories to words:
 * plural(3, {one: t(…), few: t(…), many: t(…)}) picks the «few» word («карты»).
 */
export function plural(count, forms) {
  const category = new Intl.PluralRules(pageLanguage()).select(Number(count));
  return forms[category] ?? forms.other ?? forms.many ?? forms.one;
}

/**
 * A sentence whose noun follows a number in the genitive («из 21 карты», «из 5 карт», «не
 * меньше 1 фишки»): Russian has one form for «one» (1, 21) and one for the rest, English
 * one for 1 and one for the rest, so two whole sentences are enough — `one` (already
 * translated) for the «one» category of the page's language, `other` for every other.
 */
export function pluralText(count, one, other, values) {
  return fmt(plural(count, { one, other, few: other, many: other }), values);
}
