// «Ваш ход», even in another tab: when the player's decision comes while the page is
// hidden, the tab title flashes until the page is seen again and, if the player allowed
// it, a browser notification says so (one per table: a newer one replaces the older).
// Optional signals: short sounds for a card dealt, the player's turn and a win, and a
// vibration on the player's turn on phones that have it. Everything is off until the
// player turns it on with a click in the table settings (never asked on load); the
// choices are remembered in localStorage.
//
// The sounds are synthesised with the Web Audio API rather than played from files: a few
// oscillator notes need no binary assets in the repository, nothing to serve and no
// media-src in the Content-Security-Policy.

import { fmt, t } from "./dom.js";

const SOUND_KEY = "twentyone:alerts:sound";
const NOTIFY_KEY = "twentyone:alerts:notify";
const FLASH_MS = 1000;
const VIBRATE_MS = 200;
const CARD_EVENTS = new Set(["deal", "hit", "double", "dealer_draw", "banker_draw"]);
// Notes as [frequency Hz, start s, length s]: a soft tick, a rising call, a short fanfare.
const TUNES = {
  card: [[880, 0, 0.05]],
  turn: [
    [660, 0, 0.12],
    [880, 0.14, 0.18],
  ],
  win: [
    [523, 0, 0.12],
    [659, 0.12, 0.12],
    [784, 0.24, 0.25],
  ],
};

function stored(key) {
  try {
    return window.localStorage.getItem(key) === "on";
  } catch {
    return false; // storage refused (private mode): the choice lasts for this page only
  }
}

function store(key, on) {
  try {
    window.localStorage.setItem(key, on ? "on" : "off");
  } catch {
    /* as above */
  }
}

/** The page's signals. `config` is the table page's config (its `table` id and `user`). */
export function createAlerts({ config }) {
  const soundButton = document.getElementById("alert-sound");
  const notifyButton = document.getElementById("alert-notify");
  const note = document.getElementById("alert-note");
  const canNotify = "Notification" in window;
  let sound = stored(SOUND_KEY);
  let notify = canNotify && stored(NOTIFY_KEY) && Notification.permission === "granted";
  let audio = null;
  let flashTimer = 0;
  let flashing = false;
  let plainTitle = document.title;
  let notice = null;

  function show() {
    if (soundButton) soundButton.setAttribute("aria-pressed", String(sound));
    if (notifyButton) {
      notifyButton.hidden = !canNotify;
      notifyButton.setAttribute("aria-pressed", String(notify));
    }
  }

  function say(text) {
    if (!note) return;
    note.textContent = text || "";
    note.hidden = !text;
  }

  // Browsers start an AudioContext only from a user's gesture: the toggle's click, or (the
  // choice remembered from an earlier visit) the first click or key on the page.
  function wakeAudio() {
    if (!sound) return null;
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return null;
    if (!audio) audio = new Context();
    if (audio.state === "suspended") audio.resume().catch(() => {});
    return audio;
  }

  function play(name) {
    if (!sound) return;
    const context = wakeAudio();
    if (!context || context.state !== "running") return;
    const start = context.currentTime + 0.01;
    for (const [frequency, at, length] of TUNES[name]) {
      const oscillator = context.createOscillator();
      const gain = context.createGain();
      oscillator.type = "sine";
      oscillator.frequency.value = frequency;
      gain.gain.setValueAtTime(0.0001, start + at);
      gain.gain.exponentialRampToValueAtTime(0.2, start + at + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, start + at + length);
      oscillator.connect(gain).connect(context.destination);
      oscillator.start(start + at);
      oscillator.stop(start + at + length + 0.02);
    }
  }

  function startFlash() {
    if (flashing) return;
    flashing = true;
    plainTitle = document.title;
    let on = false;
    const step = () => {
      on = !on;
      document.title = on ? t("Ваш ход") : plainTitle;
    };
    step();
    flashTimer = setInterval(step, FLASH_MS);
  }

  function stopFlash() {
    if (!flashing) return;
    flashing = false;
    clearInterval(flashTimer);
    document.title = plainTitle;
  }

  function showNotice() {
    if (!notify || !canNotify || Notification.permission !== "granted") return;
    try {
      notice = new Notification(fmt(t("Ваш ход — стол %(number)s"), { number: config.table }), {
        body: document.querySelector(".table-title h1")?.textContent || "",
        tag: `twentyone-table-${config.table}`,
        icon: document.querySelector('link[rel="apple-touch-icon"]')?.href,
        renotify: true,
      });
      notice.onclick = () => {
        window.focus();
        notice.close();
      };
    } catch {
      // Android's Chrome builds notifications only from a service worker: the title still flashes.
      notice = null;
    }
  }

  function yourTurn() {
    play("turn");
    if (sound && navigator.vibrate) navigator.vibrate(VIBRATE_MS);
    if (document.hidden) {
      startFlash();
      showNotice();
    }
  }

  function turnOver() {
    stopFlash();
    if (notice) notice.close();
    notice = null;
  }

  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) turnOver();
  });
  for (const type of ["pointerdown", "keydown"]) {
    document.addEventListener(type, () => wakeAudio(), { capture: true, passive: true });
  }

  if (soundButton) {
    soundButton.addEventListener("click", () => {
      sound = !sound;
      store(SOUND_KEY, sound);
      show();
      if (sound) wakeAudio();
    });
  }
  if (notifyButton && canNotify) {
    notifyButton.addEventListener("click", async () => {
      if (notify) {
        notify = false;
        store(NOTIFY_KEY, false);
        say("");
        show();
        return;
      }
      let permission = Notification.permission;
      if (permission === "default") permission = await Notification.requestPermission();
      notify = permission === "granted";
      store(NOTIFY_KEY, notify);
      say(notify ? "" : t("Уведомления запрещены в настройках браузера"));
      show();
    });
  }
  show();

  /** Called for every frame the page applies; `arrived` is true when the player's decision
   * has just come (main.js's renderTurn). */
  function frame(shown, message, events, arrived) {
    const seat = shown.you ? shown.you.seat : null;
    const game = shown.game;
    const mine = Boolean(seat && game && game.status === "playing" && game.view && game.view.turn === seat);
    if (arrived) yourTurn();
    else if (!mine) turnOver();
    // A snapshot's events are the past (a reload): only a live update makes a sound.
    if (message.type !== "update" || !seat) return;
    if (events.some((event) => won(event, seat))) play("win");
    else if (!arrived && events.some((event) => CARD_EVENTS.has(event.type))) play("card");
  }

  return { frame };
}

function won(event, seat) {
  if (event.type !== "settle") return false;
  if (event.seat === seat) return event.outcome === "win" || event.delta > 0;
  return (event.hands || []).some((hand) => hand.seat === seat && (hand.outcome === "win" || hand.delta > 0));
}
