// The recorded L1's ways at one cycle (pure logic, tested in node): the frames carry a snapshot
// (every valid way) in the window's first frame and after a kernel began, then only the ways that
// changed in each cycle (crate/src/timeline/cache.rs; the Rust twin is cache::state_at).

/** Replays snapshots and changes up to frame fi: {geom, ways: Map(slot -> way)}. */
export function cacheState(frames, fi) {
  let start = 0;
  for (let i = fi; i >= 0; i--) {
    if (frames[i].l1?.snapshot) {
      start = i;
      break;
    }
  }
  const snap = frames[start].l1?.snapshot;
  if (!snap) return null;
  const geom = snap.geometry;
  const ways = new Map();
  for (const w of snap.ways) ways.set(w.set * geom.assoc + w.way, w);
  for (let i = start + 1; i <= fi; i++) {
    for (const w of frames[i].l1.changed) {
      const k = w.set * geom.assoc + w.way;
      if (w.line === null) ways.delete(k);
      else ways.set(k, w);
    }
  }
  return { geom, ways };
}

