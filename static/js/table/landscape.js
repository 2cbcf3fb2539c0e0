// Landscape phones (issue 20 item 1): the screen is too short for the felt and the action dock
// one above the other, so the dock (whose turn, the clock, the actions) moves to the top of the
// side column, which stays on screen (static/css/table.css), and the felt has the left column
// to itself. Back on any other screen the dock returns to its place under the felt.

// The same query as the landscape block of static/css/table.css.
export const LANDSCAPE_PHONE = "(orientation: landscape) and (max-height: 540px) and (min-width: 640px)";

export function mountLandscape() {
  const dock = document.querySelector(".action-dock");
  const side = document.querySelector(".table-side");
  if (!dock || !side || !window.matchMedia) return;
  const home = document.createComment("action-dock");
  dock.before(home);
  const query = window.matchMedia(LANDSCAPE_PHONE);
  const place = () => {
    if (query.matches) side.prepend(dock);
    else home.after(dock);
  };
  place();
  query.addEventListener("change", place);
}

/** Whether the dock lies over the felt's column (so that what it covers is not in view). */
export function dockCoversFelt(dock, area) {
  if (!dock || !area) return false;
  const a = area.getBoundingClientRect();
  const d = dock.getBoundingClientRect();
  return d.width > 0 && d.left < a.right && d.right > a.left;
}
