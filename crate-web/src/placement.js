// Where the selected thing is on screen, for the inspector to open away from it. Read at the
// next frame, once every part of the page has drawn the selection, and handed to `done` as
// (left, top, right, bottom, viewport width, viewport height) in CSS pixels, or all zeros if
// nothing is selected. One layout read, when the inspector opens on something new.
export function selectedBoxNextFrame(done) {
  requestAnimationFrame(() => {
    const el = document.querySelector('.selected');
    if (!el) { done(0, 0, 0, 0, 0, 0); return; }
    const r = el.getBoundingClientRect();
    done(r.left, r.top, r.right, r.bottom, window.innerWidth, window.innerHeight);
  });
}
