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
