// Bundle the files the live kernel's preloaded packages unpack (coursebuild/lite/fast_start/snapshot.py, make_file_bundle).
// node kernel_files.mjs <served pyodide folder> <job.json>
// job.json: {"packages": [names, as jupyter-lite.json's loadPyodideOptions.packages], "out": path}
// Boots the served runtime bare and lists its files, boots it again with the packages as the kernel's worker
// does (loadPyodide's packages), and writes every file the second boot has and the first has not, with the
// packages it records as loaded, in one gzipped bundle:
// [u32 LE header length][header JSON {"requested", "packages", "files": [[path, size], ...]}][the files' bytes].
// kernel_boot.mjs writes them back in one pass instead of unpacking the wheels at each start. On failure the
// last line of stderr names the error.
import { pathToFileURL } from "node:url";
import fs from "node:fs";
import zlib from "node:zlib";
import { errorLine } from "./node_error.mjs";

const [pyodideDir, jobFile] = process.argv.slice(2);
const job = JSON.parse(fs.readFileSync(jobFile, "utf8"));
const SKIP = ["/dev/", "/proc/", "/sys/", "/tmp/"];

function listFiles(FS, dir = "/", out = new Map()) {
  for (const name of FS.readdir(dir)) {
    if (name === "." || name === "..") continue;
    const path = dir === "/" ? `/${name}` : `${dir}/${name}`;
    if (SKIP.some((skip) => `${path}/`.startsWith(skip))) continue;
    const stat = FS.lstat(path);
    if (FS.isDir(stat.mode)) listFiles(FS, path, out);
    else if (FS.isFile(stat.mode)) out.set(path, stat.size);
    else throw new Error(`${path}: neither a file nor a folder (the bundle holds only files)`);
  }
  return out;
}

try {
  const { loadPyodide } = await import(pathToFileURL(`${pyodideDir}/pyodide.mjs`).href);
  const options = { indexURL: `${pyodideDir}/`, stdout: console.log, stderr: console.error };
  const bare = await loadPyodide(options);
  const before = listFiles(bare.FS);
  // then as the kernel's worker boots: the packages loaded with the runtime
  const pyodide = await loadPyodide({ ...options, packages: job.packages });
  const packages = { ...pyodide.loadedPackages };
  const missing = job.packages.filter((name) => !Object.keys(packages).some(
    (n) => n.toLowerCase().replace(/_/g, "-") === name.toLowerCase()));
  if (missing.length) {
    throw new Error(`not loaded: ${missing.join(", ")}`);
  }
  const files = [...listFiles(pyodide.FS)].filter(([path]) => !before.has(path)).sort(([a], [b]) => (a < b ? -1 : 1));
  const header = Buffer.from(JSON.stringify({ requested: job.packages, packages, files }));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length);
  const parts = [length, header, ...files.map(([path]) => Buffer.from(pyodide.FS.readFile(path)))];
  fs.writeFileSync(job.out, zlib.gzipSync(Buffer.concat(parts), { level: 6 }));
  const bytes = files.reduce((sum, [, size]) => sum + size, 0);
  console.log(`[build_lite] kernel files: ${files.length} files of ${Object.keys(packages).length} packages, ` +
              `${(bytes / 2 ** 20).toFixed(1)} MiB`);
} catch (error) {
  process.stderr.write(`${errorLine(error)}\n`);
  process.exitCode = 1;
}
