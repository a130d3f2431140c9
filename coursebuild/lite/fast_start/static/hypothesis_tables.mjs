// Make hypothesis's Unicode tables with the live kernel's own Python (coursebuild/lite/fast_start/hypothesis.py, make_tables).
// node hypothesis_tables.mjs <served pyodide folder> <job.json>
// job.json: {"wheels": [wheel paths: hypothesis and what it needs], "out": path}
// Boots the served runtime, loads the wheels, and lets hypothesis build and save the two tables st.text() needs
// (its charmap, and the code points UTF-8 can encode) in a storage folder of its own; writes every file it saved
// under unicode_data/ to "out" as {"files": {path in the folder: base64}}. On failure the last line of stderr
// names the error.
import { pathToFileURL } from "node:url";
import fs from "node:fs";
import { errorLine } from "./node_error.mjs";

const HOME = "/tmp/hypothesis-tables";
const [pyodideDir, jobFile] = process.argv.slice(2);
const job = JSON.parse(fs.readFileSync(jobFile, "utf8"));
try {
  const { loadPyodide } = await import(pathToFileURL(`${pyodideDir}/pyodide.mjs`).href);
  const pyodide = await loadPyodide({
    indexURL: `${pyodideDir}/`, env: { HYPOTHESIS_STORAGE_DIRECTORY: HOME }, stdout: console.log, stderr: console.error,
  });
  await pyodide.loadPackage(job.wheels, { messageCallback: () => {} });
  pyodide.runPython(`
from hypothesis.internal.charmap import charmap, intervals_from_codec
charmap()
intervals_from_codec("utf-8")
`);
  const files = {};
  const walk = (dir) => {
    for (const name of pyodide.FS.readdir(dir)) {
      const path = `${dir}/${name}`;
      if (name === "." || name === "..") continue;
      if (pyodide.FS.isDir(pyodide.FS.stat(path).mode)) walk(path);
      else files[path.slice(HOME.length + 1)] = Buffer.from(pyodide.FS.readFile(path)).toString("base64");
    }
  };
  walk(`${HOME}/unicode_data`);  // not its .gitignore, nor its empty tmp folder
  const tables = Object.keys(files);
  if (tables.length !== 2) {
    throw new Error(`hypothesis saved ${tables.length} Unicode tables in ${HOME}, not 2: ${tables}`);
  }
  fs.writeFileSync(job.out, JSON.stringify({ files }));
  console.log(`[build_lite] hypothesis tables: ${tables.join(", ")}`);
} catch (error) {
  process.stderr.write(`${errorLine(error)}\n`);
  process.exitCode = 1;
}
