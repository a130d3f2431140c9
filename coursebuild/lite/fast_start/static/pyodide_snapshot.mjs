// Make the live kernel's memory snapshot (coursebuild/lite/fast_start/snapshot.py, make_snapshot).
// node pyodide_snapshot.mjs <served pyodide folder> <job.json>
// job.json: {"wheels": [file names in that folder], "imports": [module names], "out": path, "sys_executable": str}
// Boots the served runtime as the kernel's worker would, unpacks the wheels into site-packages, applies
// pyodide-kernel's sys.modules mocks, imports the modules and writes the gzipped snapshot to "out";
// refuses when a file other than the standard streams is still open. On failure the last line of stderr
// names the error (a Python exception's own last traceback line), not Node's dump of the minified source.
import { pathToFileURL } from "node:url";
import fs from "node:fs";
import { errorLine } from "./node_error.mjs";
import { makeSnapshotOptions } from "./pyodide_private.mjs";
import zlib from "node:zlib";

const [pyodideDir, jobFile] = process.argv.slice(2);
const job = JSON.parse(fs.readFileSync(jobFile, "utf8"));
try {
  const { loadPyodide } = await import(pathToFileURL(`${pyodideDir}/pyodide.mjs`).href);
  const pyodide = await loadPyodide({
    indexURL: `${pyodideDir}/`, ...makeSnapshotOptions(job.sys_executable),
    stdout: console.log, stderr: console.error,
  });
  pyodide.FS.mkdirTree("/tmp/wheels");
  for (const name of job.wheels) {
    pyodide.FS.writeFile(`/tmp/wheels/${name}`, fs.readFileSync(`${pyodideDir}/${name}`));
  }
  pyodide.globals.set("WHEELS", JSON.stringify(job.wheels));
  pyodide.globals.set("IMPORTS", JSON.stringify(job.imports));
  pyodide.runPython(`
def _prepare(wheels, imports):
    import importlib, importlib.util, json, os, shutil, sys, sysconfig, zipfile
    site = sysconfig.get_paths()["purelib"]
    for name in json.loads(wheels):
        with zipfile.ZipFile(f"/tmp/wheels/{name}") as zf:
            zf.extractall(site)
    shutil.rmtree("/tmp/wheels")
    importlib.invalidate_caches()
    # pyodide-kernel's package applies these before it imports IPython: apply them the same way first
    path = os.path.join(site, "pyodide_kernel", "mocks.pyc")
    if not os.path.exists(path):
        path = path[:-1]
    spec = importlib.util.spec_from_file_location("_pyodide_kernel_mocks", path)
    mocks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mocks)
    mocks.apply_mocks()
    for module in json.loads(imports):
        importlib.import_module(module)
    # loadPyodide puts "" first on sys.path after every boot, a restored one too: leave it to that
    if sys.path[0] == "":
        del sys.path[0]
    # importlib.metadata's path cache keeps a ZipFile of the stdlib zip open; its descriptor would not exist
    # after the restore (a later file could take its number): drop the cache and collect what it held
    importlib.invalidate_caches()
    import gc
    gc.collect()

_prepare(WHEELS, IMPORTS)
del _prepare, WHEELS, IMPORTS
  `);
  // a file open now would be a stale descriptor in every restored kernel: refuse the snapshot
  const open = pyodide.FS.streams.filter((stream) => stream && !stream.path.startsWith("/dev/")).map((s) => s.path);
  if (open.length) {
    throw new Error(`files still open when the snapshot would be taken: ${open.join(", ")}`);
  }
  const snapshot = pyodide.makeMemorySnapshot();
  fs.writeFileSync(job.out, zlib.gzipSync(snapshot, { level: 6 }));
  console.log(`[build_lite] kernel snapshot: ${job.imports.length} modules imported, heap ${(snapshot.length / 2 ** 20).toFixed(1)} MiB`);
} catch (error) {
  process.stderr.write(`${errorLine(error)}\n`);
  process.exitCode = 1;
}
