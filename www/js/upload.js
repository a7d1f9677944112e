// Reading uploads: files from the input, the folder input or a drop (folders walked), a size
// limit checked before anything is read, and format detection from magic bytes (a preview for
// the page; Rust detects again and is the judge).

/** Most bytes the page accepts in one upload: the bytes are copied into wasm memory (2-3 times
 *  for text traces), and wasm32 memory tops out at 4 GiB with far less usable in practice. */
export const MAX_UPLOAD_BYTES = 256 * 1024 * 1024;

/** The limit in force: `?maxUpload=BYTES` lowers it (for tests and small devices). */
export function maxUploadBytes() {
  const q = Number(new URLSearchParams(globalThis.location?.search || '').get('maxUpload'));
  return q > 0 ? Math.min(q, MAX_UPLOAD_BYTES) : MAX_UPLOAD_BYTES;
}

const MAGICS = [
  ['compact', [0x89, 0x57, 0x57, 0x54, 0x52, 0x43, 0x0d, 0x0a]],
  ['text+gzip', [0x1f, 0x8b]],
  ['text+zstd', [0x28, 0xb5, 0x2f, 0xfd]],
  ['text+xz', [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]],
];

export function detectFormat(head) {
  if (head.length >= 262 && String.fromCharCode(...head.subarray(257, 262)) === 'ustar') return 'tar';
  if (head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && head[2] === 3 && head[3] === 4) return 'zip';
  for (const [name, m] of MAGICS) {
    if (head.length >= m.length && m.every((b, i) => head[i] === b)) return name;
  }
  const n = Math.min(head.length, 512);
  if (n === 0) return 'empty';
  for (let i = 0; i < n; i++) {
    const b = head[i];
    if (!(b === 9 || b === 10 || b === 13 || (b >= 0x20 && b < 0x7f))) return 'unknown';
  }
  return 'text';
}

export function formatBytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

/** The relative name of a File (folder uploads carry webkitRelativePath). */
export function relName(f) {
  return f.relPath || f.webkitRelativePath || f.name;
}

/** The CLI command to run these files natively, for the refusal message. */
export function cliCommand(files, preset, mode) {
  let path;
  if (files.length === 1) path = relName(files[0]);
  else {
    const first = relName(files[0]);
    path = first.includes('/') ? first.split('/')[0] : 'path/to/trace-folder';
  }
  const q = /[^\w./-]/.test(path) ? `'${path.replace(/'/g, "'\\''")}'` : path;
  return `warpweave run --trace ${q} --gpu ${preset} --mode ${mode}`;
}

/** Collects File objects from a drop event, walking dropped folders. */
export async function filesFromDrop(dt) {
  const items = [...(dt.items || [])];
  const entries = items.map((i) => (i.webkitGetAsEntry ? i.webkitGetAsEntry() : null)).filter(Boolean);
  if (!entries.length) return [...(dt.files || [])];
  const out = [];
  async function walk(entry, prefix) {
    if (entry.isFile) {
      const f = await new Promise((res, rej) => entry.file(res, rej));
      f.relPath = prefix + f.name;
      out.push(f);
    } else if (entry.isDirectory) {
      const reader = entry.createReader();
      for (;;) {
        const batch = await new Promise((res, rej) => reader.readEntries(res, rej));
        if (!batch.length) break;
        for (const e of batch) await walk(e, prefix + entry.name + '/');
      }
    }
  }
  for (const e of entries) await walk(e, '');
  return out;
}

/**
 * Checks and reads files. Returns {files:[{name, bytes}], formats:[...]} or throws an Error with
 * a plain message (too big: with the exact CLI command; empty; unknown format).
 */
export async function readUpload(fileList, preset, mode) {
  let files = [...fileList].filter((f) => !relName(f).split('/').some((p) => p.startsWith('.')));
  if (!files.length) throw new Error('No files were chosen.');
  // A folder with a kernels list: keep the list and the kernel files, ignore the rest (logs...).
  const isList = (f) => /(^|\/)kernelslist(\.g)?$/.test(relName(f));
  const isKernel = (f) => /\.(traceg|trace)(\.(gz|zst|xz))?$/.test(relName(f));
  if (files.length > 1 && files.some(isList)) files = files.filter((f) => isList(f) || isKernel(f));
  const total = files.reduce((a, f) => a + f.size, 0);
  const limit = maxUploadBytes();
  if (total > limit) {
    throw Object.assign(
      new Error(
        `These files hold ${formatBytes(total)}, more than this page can simulate (limit ${formatBytes(limit)}). ` +
          `Run them with the command-line tool instead:\n\n    ${cliCommand(files, preset, mode)}`,
      ),
      { kind: 'too-big' },
    );
  }
  const out = [];
  const formats = [];
  for (const f of files) {
    const bytes = new Uint8Array(await f.arrayBuffer());
    const fmt = detectFormat(bytes.subarray(0, 512));
    if (fmt === 'empty') throw new Error(`${relName(f)}: the file is empty.`);
    formats.push(fmt);
    out.push({ name: relName(f), bytes });
  }
  return { files: out, formats, total };
}
