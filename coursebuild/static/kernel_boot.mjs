// The live kernel's Pyodide entry point: jupyter-lite.json's pyodideUrl (coursebuild/lite_snapshot.py).
//
// The kernel's worker imports this module and calls its loadPyodide with the options it would pass
// to Pyodide's own. It loads Pyodide from the memory snapshot the site serves beside it
// (kernel.snapshot.gz: the runtime with IPython, jedi, comm and traitlets already imported, made at
// build time by pyodide_snapshot.mjs), so the kernel skips importing them; the preloaded packages are
// still unpacked, so every module that is imported later is found. Without a snapshot it boots as
// Pyodide does, and says why.
import { loadPyodide as loadRuntime } from "./pyodide.mjs";

export const SNAPSHOT_URL = new URL("kernel.snapshot.gz", import.meta.url);
const PAGE = 65536;

/** The snapshot's bytes, gunzipped here unless the server already did it. */
async function fetchSnapshot(url) {
  const response = await fetch(url);
  if (!response.ok) {
    throw new Error(`${url}: HTTP ${response.status}`);
  }
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) {
    return bytes;
  }
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/**
 * Run load() with the wasm heap grown to the snapshot's size as the module is instantiated.
 * Pyodide 314.0.6 sizes the heap for a snapshot through INITIAL_MEMORY, which its module does not read
 * (its memory is declared inside the wasm), so a snapshot larger than the default 30 MiB heap fails to
 * copy in with "offset is out of bounds" (pyodide/pyodide#6254).
 */
async function withHeapFor(snapshot, load) {
  const originals = { instantiate: WebAssembly.instantiate, instantiateStreaming: WebAssembly.instantiateStreaming };
  for (const [name, original] of Object.entries(originals)) {
    WebAssembly[name] = async function (...args) {
      const result = await original.apply(WebAssembly, args);
      const memory = (result.instance ?? result).exports.memory;
      if (memory instanceof WebAssembly.Memory) {  // Pyodide's module, not a helper without memory
        const size = await snapshot.then((bytes) => bytes.length, () => 0);
        if (memory.buffer.byteLength < size) {
          memory.grow(Math.ceil((size - memory.buffer.byteLength) / PAGE));
        }
      }
      return result;
    };
  }
  try {
    return await load();
  } finally {
    Object.assign(WebAssembly, originals);
  }
}

export async function loadPyodide(options = {}) {
  const started = performance.now();
  const snapshot = fetchSnapshot(SNAPSHOT_URL);
  let pyodide;
  try {
    pyodide = await withHeapFor(snapshot, () => loadRuntime({ ...options, _loadSnapshot: snapshot }));
  } catch (error) {
    console.warn(`kernel: booting without the snapshot (${error.message})`);
    return loadRuntime(options);
  }
  // the snapshot froze the state of random's generator: every kernel would draw the same numbers
  const random = pyodide.pyimport("random");
  random.seed();
  random.destroy();
  console.log(`kernel: restored from the snapshot in ${Math.round(performance.now() - started)} ms`);
  return pyodide;
}
