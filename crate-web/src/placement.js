// Where the selected thing and the playback bar are on screen, for the inspector to open away
// from both. Read at the next frame, once every part of the page has drawn the selection, and
// handed to `done` as (left, top, right, bottom, viewport width, viewport height, the playback
// bar's bottom) in CSS pixels, or all zeros if nothing is selected. One layout read, when the
// inspector opens on something new.
export function selectedBoxNextFrame(done) {
  requestAnimationFrame(() => {
    const el = document.querySelector('.selected');
    if (!el) { done(0, 0, 0, 0, 0, 0, 0); return; }
    const r = el.getBoundingClientRect();
    const bar = document.getElementById('controls');
    done(r.left, r.top, r.right, r.bottom, window.innerWidth, window.innerHeight,
      bar ? bar.getBoundingClientRect().bottom : 0);
  });
}

// Keeps what the keyboard focuses out from under the panel: when the focus moves to an
// element outside it that the panel covers (once the browser has scrolled it into view),
// `done` gets that element's box, as above, for the panel to dock away from it. Returns the
// function that stops listening.
export function onFocusUnder(panel, done) {
  const on = (e) => {
    const el = e.target;
    if (!(el instanceof Element) || panel.contains(el)) return;
    requestAnimationFrame(() => {
      if (!el.isConnected || document.activeElement !== el) return;
      const p = panel.getBoundingClientRect();
      const r = el.getBoundingClientRect();
      if (r.right <= p.left || r.left >= p.right || r.bottom <= p.top || r.top >= p.bottom) return;
      const bar = document.getElementById('controls');
      done(r.left, r.top, r.right, r.bottom, window.innerWidth, window.innerHeight,
        bar ? bar.getBoundingClientRect().bottom : 0);
    });
  };
  document.addEventListener('focusin', on);
  return () => document.removeEventListener('focusin', on);
}

// Tab order around the panel, as for a popover: Tab from its last stop goes on to the stop
// after what opened it, Shift+Tab from its first stop back to that opener, not to wherever
// the panel sits in the page. Returns whether it moved the focus.
const STOPS = 'a[href], button, input, select, textarea, [tabindex]';
const usable = (el) => el.tabIndex >= 0 && !el.disabled && el.checkVisibility({ visibilityProperty: true });
export function tabAroundPanel(panel, opener, backwards) {
  if (!opener || !opener.isConnected) return false;
  if (backwards && document.activeElement === panel) { opener.focus(); return true; }
  const inside = [...panel.querySelectorAll(STOPS)].filter(usable);
  const edge = backwards ? inside[0] : inside[inside.length - 1];
  if (!edge || document.activeElement !== edge) return false;
  if (backwards) { opener.focus(); return true; }
  const next = [...document.querySelectorAll(STOPS)].find((el) => usable(el)
    && !panel.contains(el) && !opener.contains(el)
    && (opener.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING));
  (next || opener).focus();
  return true;
}

// Tab from what opened the panel goes into it (to its first stop), as into a popover, not past
// it to wherever the panel sits in the page. Returns the function that stops listening.
export function onTabFromOpener(panel, opener) {
  const on = (e) => {
    if (e.key !== 'Tab' || e.shiftKey || e.altKey || e.ctrlKey || e.metaKey) return;
    if (document.activeElement !== opener || !panel.isConnected) return;
    const first = [...panel.querySelectorAll(STOPS)].find(usable);
    e.preventDefault();
    (first || panel).focus();
  };
  document.addEventListener('keydown', on);
  return () => document.removeEventListener('keydown', on);
}

// The page scrolls what it brings into view (Tab, "Show where", the log's line) clear of the
// sticky playback bar by its height as it is, not a guess: a lesson's caption or a wrapped
// row makes it taller. Sets `--bar-h` and the class `bar-tracked` on the root (style.css)
// while the bar lives. Returns the function that stops.
export function trackBarHeight(bar) {
  const root = document.documentElement;
  const set = () => root.style.setProperty('--bar-h', `${bar.getBoundingClientRect().height}px`);
  const seen = new ResizeObserver(set);
  seen.observe(bar);
  set();
  root.classList.add('bar-tracked');
  return () => { seen.disconnect(); root.classList.remove('bar-tracked'); root.style.removeProperty('--bar-h'); };
}
