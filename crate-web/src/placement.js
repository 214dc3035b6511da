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
