// The live kernel's Pyodide entry point: jupyter-lite.json's pyodideUrl (coursebuild/lite/fast_start/snapshot.py).
//
// The kernel's worker imports this module and calls its loadPyodide with the options it would pass
// to Pyodide's own. It loads Pyodide from the memory snapshot the site serves beside it
// (kernel.snapshot.gz: the runtime with IPython, jedi, comm, traitlets, pytest and hypothesis already imported, made at
// build time by pyodide_snapshot.mjs), so the kernel skips importing them; and it writes back, in one pass,
// the files the preloaded packages unpack (kernel_files.bin.gz, made by kernel_files.mjs), so every module
// imported later is found without unpacking their wheels again. Without a snapshot it boots as Pyodide does,
// and says why. Either way it gives the kernel hypothesis's Unicode tables, made at build time
// (hypothesis_tables.json, coursebuild/lite/fast_start/hypothesis.py), so the first st.text() does not build them.
import { loadPyodide as loadRuntime } from "./pyodide.mjs";
import { loadSnapshotOptions } from "./pyodide_private.mjs";

export const SNAPSHOT_URL = new URL("kernel.snapshot.gz", import.meta.url);
export const FILES_URL = new URL("kernel_files.bin.gz", import.meta.url);
export const TABLES_URL = new URL("hypothesis_tables.json", import.meta.url);
/** hypothesis's storage folder in the kernel (lite_hypothesis.KERNEL_HOME): memory, not the reader's files */
const HYPOTHESIS_HOME = "/tmp/hypothesis";
const PAGE = 65536;

/** The response for a file the site serves beside this module, or an error naming its HTTP status. */
async function fetchServed(url) {
  const response = await fetch(url);
  if (!response.ok) {
    throw new Error(`${url}: HTTP ${response.status}`);
  }
  return response;
}

/** A gzipped file's bytes, gunzipped here unless the server already did it. */
async function fetchGunzipped(url) {
  const response = await fetchServed(url);
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

/**
 * Write the preloaded packages' files (a bundle of kernel_files.mjs) and record the packages as loaded, as
 * pyodide.loadPackage(packages) would; refuse a bundle made for other packages.
 */
function writePackageFiles(pyodide, bytes, packages) {
  const length = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + length)));
  if (JSON.stringify(header.requested) !== JSON.stringify(packages)) {
    throw new Error(`the bundle holds ${header.requested}, the kernel preloads ${packages}`);
  }
  const folders = new Set();
  let offset = 4 + length;
  for (const [path, size] of header.files) {
    const folder = path.slice(0, path.lastIndexOf("/"));
    if (!folders.has(folder)) {
      pyodide.FS.mkdirTree(folder);
      folders.add(folder);
    }
    pyodide.FS.writeFile(path, bytes.subarray(offset, offset + size));
    offset += size;
  }
  Object.assign(pyodide.loadedPackages, header.packages);
  pyodide.runPython("import importlib\nimportlib.invalidate_caches()");
  return header.files.length;
}

/** The files of hypothesis's storage folder the site serves: {path in the folder: base64}. */
async function fetchTables(url) {
  return (await (await fetchServed(url)).json()).files;
}

/** Write the tables where hypothesis looks, and point hypothesis there (unless the reader chose a folder). */
async function useHypothesisTables(pyodide, tables) {
  let written = 0;
  try {
    for (const [path, data] of Object.entries(await tables)) {
      const file = `${HYPOTHESIS_HOME}/${path}`;
      pyodide.FS.mkdirTree(file.slice(0, file.lastIndexOf("/")));
      pyodide.FS.writeFile(file, Uint8Array.from(atob(data), (c) => c.charCodeAt(0)));
      written += 1;
    }
  } catch (error) {
    console.warn(`kernel: hypothesis will build its Unicode tables (${error.message})`);
  }
  pyodide.runPython(`import os\nos.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", "${HYPOTHESIS_HOME}")`);
  return written;
}

export async function loadPyodide(options = {}) {
  const started = performance.now();
  const snapshot = fetchGunzipped(SNAPSHOT_URL);
  const files = fetchGunzipped(FILES_URL);
  const tables = fetchTables(TABLES_URL);
  files.catch(() => {});  // awaited, and its failure told, after the restore
  tables.catch(() => {});  // likewise, after the boot
  const packages = options.packages ?? [];
  let pyodide;
  try {
    // the packages are not loaded by Pyodide here: their files are written from the bundle below
    pyodide = await withHeapFor(snapshot, () => loadRuntime({ ...options, packages: [], ...loadSnapshotOptions(snapshot) }));
  } catch (error) {
    console.warn(`kernel: booting without the snapshot (${error.message})`);
    pyodide = await loadRuntime(options);
    await useHypothesisTables(pyodide, tables);
    return pyodide;
  }
  // the snapshot froze the state of random's generator: every kernel would draw the same numbers
  const random = pyodide.pyimport("random");
  random.seed();
  random.destroy();
  let how;
  try {
    how = `${writePackageFiles(pyodide, await files, packages)} package files written`;
  } catch (error) {
    console.warn(`kernel: unpacking the preloaded packages (${error.message})`);
    await pyodide.loadPackage(packages);
    how = "packages unpacked";
  }
  const tablesWritten = await useHypothesisTables(pyodide, tables);
  console.log(`kernel: restored from the snapshot in ${Math.round(performance.now() - started)} ms ` +
              `(${how}, ${tablesWritten} hypothesis tables)`);
  return pyodide;
}
