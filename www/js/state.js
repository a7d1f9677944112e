// The shareable state in the URL fragment, versioned:
//   #v=1&gpu=<preset>&mode=<mode>&w=<workload>&p.<param>=<value>...&c.<config key>=<value>...
//   (sass=<example> instead of w= for an unedited example of the SASS tab)
// Only config keys that differ from the preset are written, so a one-key edit stays short.
// Traces never go into URLs: an uploaded trace is written as src=upload (the visitor re-uploads).
// Parsing is lenient (unknown fields are ignored); Rust validates what is run.

export const STATE_VERSION = 1;
export const MAX_URL = 2000;

/** Encodes state {preset, mode, workload, params:{}, overrides:{}, upload:bool}. */
export function encodeState(s) {
  const q = new URLSearchParams();
  q.set('v', String(STATE_VERSION));
  q.set('gpu', s.preset || 'default');
  q.set('mode', s.mode || 'cycle');
  if (s.upload) q.set('src', 'upload');
  else if (s.sass) q.set('sass', s.sass);
  else if (s.workload) q.set('w', s.workload);
  for (const [k, v] of Object.entries(s.params || {})) q.set('p.' + k, String(v));
  for (const [k, v] of Object.entries(s.overrides || {})) q.set('c.' + k, String(v));
  return '#' + q.toString();
}

/** Decodes a fragment (with or without '#'); returns null when it holds no state. */
export function decodeState(hash) {
  const h = (hash || '').replace(/^#/, '');
  if (!h) return null;
  const q = new URLSearchParams(h);
  const v = Number(q.get('v'));
  if (!v) return null;
  if (v > STATE_VERSION) {
    return { error: `This link was made by a newer version of warpweave (state v${v}); some settings may be ignored.`, ...decodeV1(q) };
  }
  return decodeV1(q);
}

function decodeV1(q) {
  const s = { preset: q.get('gpu') || 'default', mode: q.get('mode') || 'cycle', workload: q.get('w') || null, sass: q.get('sass') || null, upload: q.get('src') === 'upload', params: {}, overrides: {} };
  for (const [k, v] of q) {
    if (k.startsWith('p.')) s.params[k.slice(2)] = v;
    else if (k.startsWith('c.')) s.overrides[k.slice(2)] = v;
  }
  return s;
}
