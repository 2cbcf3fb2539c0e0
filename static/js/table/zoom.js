// The card zoom, a table setting for every variant (issue 20 item 7): «−»/«+» beside the
// table controls, 80–140 % in steps of 10, remembered per browser. It sets --zoom on the
// table page; the card widths in static/css multiply by it.

import { h, t } from "./dom.js";

const ZOOM_KEY = "twentyone:zoom";
const OLD_KEY = "twentyone:solo:zoom";
export const ZOOM_MIN = 80;
export const ZOOM_MAX = 140;
const ZOOM_STEP = 10;

function readZoom() {
  try {
    for (const key of [ZOOM_KEY, OLD_KEY]) {
      const stored = Number(window.localStorage.getItem(key));
      if (Number.isInteger(stored) && stored >= ZOOM_MIN && stored <= ZOOM_MAX) return stored;
    }
  } catch (error) {
    /* storage refused (private mode): the default */
  }
  return 100;
}

function apply(page, box, zoom) {
  page.style.setProperty("--zoom", String(zoom / 100));
  page.dataset.zoom = String(zoom);
  box.querySelector(".zoom-value").textContent = `${zoom}%`;
  box.querySelector('[data-key="zoom-out"]').disabled = zoom <= ZOOM_MIN;
  box.querySelector('[data-key="zoom-in"]').disabled = zoom >= ZOOM_MAX;
}

export function mountZoom() {
  const page = document.getElementById("table-page");
  const box = document.getElementById("table-zoom");
  if (!page || !box) return;
  let zoom = readZoom();
  const set = (value) => {
    zoom = Math.max(ZOOM_MIN, Math.min(ZOOM_MAX, value));
    try {
      window.localStorage.setItem(ZOOM_KEY, String(zoom));
    } catch (error) {
      /* not remembered, but still applied */
    }
    apply(page, box, zoom);
  };
  box.append(
    h("span", { class: "zoom-label" }, t("Размер карт")),
    h("button", { type: "button", class: "zoom-button", dataset: { key: "zoom-out" }, "aria-label": t("Карты меньше"), onclick: () => set(zoom - ZOOM_STEP) }, "−"),
    h("span", { class: "zoom-value", "aria-live": "polite" }, `${zoom}%`),
    h("button", { type: "button", class: "zoom-button", dataset: { key: "zoom-in" }, "aria-label": t("Карты больше"), onclick: () => set(zoom + ZOOM_STEP) }, "+"),
  );
  apply(page, box, zoom);
}
